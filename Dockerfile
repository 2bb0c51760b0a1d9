# gpu-npd's image: a venv with the wheel and its pinned dependencies on a Debian bookworm Python 3.11.
# BASE: python:3.11-slim with docker and a registry; where no registry image can be pulled (these build
# machines), `make image` builds the base itself from Debian packages (mmdebstrap, deploy/image/base.sh).
ARG BASE=python:3.11-slim

# build/wheels: gpu-npd's wheel and its pinned dependencies, made on the build host by `make image`
# (pip wheel -c deploy/image/constraints.txt): the image build itself needs no network.
FROM ${BASE} AS build
COPY build/wheels /wheels
RUN python3 -m venv /opt/gpu-npd \
    && /opt/gpu-npd/bin/pip install --no-cache-dir --quiet --no-index --find-links /wheels gpu-npd \
    && /opt/gpu-npd/bin/pip uninstall --quiet --yes pip setuptools \
    && find /opt/gpu-npd -name __pycache__ -prune -exec rm -rf {} + \
    && rm -rf /opt/gpu-npd/lib/python3*/site-packages/*/tests \
    && (/opt/gpu-npd/bin/python -m compileall -q -j 0 --invalidation-mode unchecked-hash /opt/gpu-npd/lib || true)
# Bytecode is compiled here, once, from the sources as installed (hash-based .pyc: the same bytes every build): the
# root filesystem is read-only and PYTHONDONTWRITEBYTECODE is set, so without it every gpu-npd process (the agent,
# `gpu-npd parse` in the image) compiled gpu-npd and its dependencies from source at start, about 2.4x the start-up
# of `gpu-npd parse` measured on a loaded build host. (A file that does not compile stays source: `|| true`.)

FROM ${BASE}
# VERSION: the project's (parsers/version.py), passed by `make image`
ARG VERSION
LABEL org.opencontainers.image.title="gpu-npd" \
      org.opencontainers.image.description="GPU node problem detector for Kubernetes" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.licenses="Apache-2.0" \
      org.opencontainers.image.source="https://github.com/gpu-npd/gpu-npd"
# libudev for pyudev, journalctl for the journald source (the Debian-built base has both already)
RUN (command -v journalctl >/dev/null && command -v tini >/dev/null \
     && python3 -c "import ctypes.util as u, sys; sys.exit(not u.find_library('udev'))") \
    || (apt-get update && apt-get install -y --no-install-recommends libudev1 systemd tini && rm -rf /var/lib/apt/lists/*)
COPY --from=build /opt/gpu-npd /opt/gpu-npd
ENV PATH=/opt/gpu-npd/bin:$PATH PYTHONDONTWRITEBYTECODE=1
USER 0
# tini as PID 1 reaps what check plugins leave behind (gpu-npd as PID 1 would collect zombies up to the pid
# limit) and forwards SIGTERM to gpu-npd
ENTRYPOINT ["/usr/bin/tini", "--", "gpu-npd"]
CMD ["run"]
