# The k6-operator's runner image for the lab's scenarios (k8s/generated/load/storefront-testrun.yaml:
# script.localFile /scripts/storefront.js): the official k6 image at K6_VERSION (lab.env) with
# k6-scripts/ at /scripts and the lab's contracts at /packages/contract, where the scripts'
# relative imports (../packages/contract/src/...) find them, as the compose k6 service mounts them.
# Build from the repository root; k6-runner.Dockerfile.dockerignore beside this file (BuildKit)
# lets in only those two folders:
#   docker build --build-arg K6_IMAGE=$K6_IMAGE --build-arg K6_VERSION=$K6_VERSION \
#     -f k8s/k6-runner.Dockerfile -t $K8S_K6_RUNNER_IMAGE .
ARG K6_IMAGE=grafana/k6
ARG K6_VERSION
FROM ${K6_IMAGE}:${K6_VERSION}
COPY k6-scripts /scripts
COPY packages/contract /packages/contract
WORKDIR /scripts
