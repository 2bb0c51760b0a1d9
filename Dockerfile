# Small multi-stage image of gpu-npd.
FROM python:3.11-slim AS build
WORKDIR /src
COPY pyproject.toml README.md ./
COPY agent ./agent
COPY parsers ./parsers
RUN pip wheel --no-cache-dir --wheel-dir /wheels .

FROM python:3.11-slim
# libudev for pyudev; journalctl for the journald source on hosts without kern.log.
RUN apt-get update && apt-get install -y --no-install-recommends libudev1 systemd \
    && rm -rf /var/lib/apt/lists/*
COPY --from=build /wheels /wheels
RUN pip install --no-cache-dir /wheels/*.whl && rm -rf /wheels
USER 0
ENTRYPOINT ["gpu-npd"]
CMD ["run"]
