"""gpu-npd's offline program: post-mortems on collected logs (`gpu-npd parse`)."""
