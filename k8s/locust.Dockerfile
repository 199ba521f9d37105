# The Locust image of the Kubernetes load (k8s/generated/load/storefront.yaml: the master and the
# workers, K8S_LOCUST_IMAGE): the official LOCUST_IMAGE at LOCUST_VERSION (lab.env) plus
# prometheus-client from traffic/requirements.lock, as the compose runtime builds it
# (runtimes/compose/images/locust/Dockerfile, target official), so the same versions as the native venv.
# No locustfile in it: they come from the ConfigMaps locustfiles and locust-lib, mounted at
# /traffic, so an edit of traffic/ needs `make k8s` and a `kubectl apply`, not a new image.
# Build from the repository root (.dockerignore lets in only what the root's images read, the
# lock included):
#   docker build --build-arg LOCUST_IMAGE=$LOCUST_IMAGE --build-arg LOCUST_VERSION=$LOCUST_VERSION \
#     -f k8s/locust.Dockerfile -t $K8S_LOCUST_IMAGE .
ARG LOCUST_IMAGE=locustio/locust
ARG LOCUST_VERSION
FROM ${LOCUST_IMAGE}:${LOCUST_VERSION}
COPY traffic/requirements.lock /tmp/requirements.lock
# The official image's venv (/opt/venv, owned by its user locust, the user this runs as) has
# Locust but not prometheus-client: that package's stanza of the lock, its pinned version and
# hashes, --no-deps (it has none)
RUN awk '/^prometheus-client==/ { on = 1 } on { print } on && !/\\$/ { exit }' /tmp/requirements.lock \
      >/tmp/prometheus-client.txt \
 && grep -q '^prometheus-client==' /tmp/prometheus-client.txt \
 && pip install --no-cache-dir --disable-pip-version-check --no-input --no-deps --require-hashes \
      -r /tmp/prometheus-client.txt \
 && python -c 'import prometheus_client'
# the ConfigMaps are read-only
ENV PYTHONDONTWRITEBYTECODE=1
