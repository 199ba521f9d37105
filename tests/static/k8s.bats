#!/usr/bin/env bats
# `make k8s` without a cluster: k8s/generated/ (ECK Elasticsearch + Kibana, the allocator, the
# exporter and Prometheus, the storefront load as Locust distributed) is fresh, valid in strict
# mode against the pinned schemas (kubeconform; core kinds from PyPI's kubernetes-validate, the
# CRDs from ECK's Go module), and a broken manifest fails, so the validator is real. A change of
# the topology in a copy of lab.env changes the nodeSets accordingly; what Kubernetes cannot
# express is one line naming the keys. Edits happen in copies, never in the checkout.

# shellcheck disable=SC2016,SC2154 # jq programs are single-quoted on purpose; run sets $stderr
bats_require_minimum_version 1.5.0

load ../lib/copy-suite
# instead of copy-suite's: the validator and its schemas, built and gathered once (cached in .lab/cache)
setup_file() {
  load ../lib/compose
  clean_env scripts/install/kubeconform.sh >/dev/null
  clean_env scripts/install/k8s-schemas.sh >/dev/null
}

# docs FILE: the YAML stream FILE as a JSON array of its documents (the workspace's `yaml` package)
docs() {
  node -e 'const Y = require(process.argv[1]); const fs = require("fs");
    console.log(JSON.stringify(Y.parseAllDocuments(fs.readFileSync(process.argv[2], "utf8")).map((d) => d.toJS())))' \
    "$REPO/node_modules/yaml" "$1"
}

# nodeset DIR NAME JQ: JQ applied to the nodeSet NAME of DIR/k8s/generated/10-elasticsearch.yaml
nodeset() { docs "$1/k8s/generated/10-elasticsearch.yaml" | jq -c --arg n "$2" ".[0].spec.nodeSets[] | select(.name == \$n) | $3"; }

@test "the committed manifests are fresh: k8s/render.mjs --check, and make render CHECK=1 covers them" {
  run --separate-stderr clean_env node k8s/render.mjs --check
  assert_success
  assert_equal "$stderr" ""
  run clean_env scripts/render --check
  assert_success
  refute_output --partial stale
}

@test "make k8s CHECK=1: every resource is valid in strict mode against the pinned schemas, none skipped" {
  run clean_env make -s k8s CHECK=1
  assert_success
  assert_output --regexp "Summary: 17 resources found in 6 files - Valid: 17, Invalid: 0, Errors: 0, Skipped: 0"
  # what was validated: the kinds of the issue
  run bash -c 'cat k8s/generated/*.yaml k8s/generated/load/*.yaml | sed -n "s/^kind: //p" | sort | uniq -c | awk "{print \$2 \" \" \$1}" | paste -sd " "'
  assert_output "ConfigMap 4 Deployment 5 Elasticsearch 1 Kibana 1 Namespace 1 Service 5"
}

@test "the load: a Locust master and K8S_LOAD_WORKERS workers, traffic/ in two ConfigMaps, the workers scraped as job load" {
  local load json
  load="$(docs k8s/generated/load/storefront.yaml)"
  obj() { jq -c --arg k "$1" --arg n "$2" '.[] | select(.kind == $k and .metadata.name == $n)' <<<"$load"; }
  # the ConfigMaps hold traffic/*.py and traffic/lib/*.py exactly (make render keeps them fresh)
  assert_equal "$(obj ConfigMap locustfiles | jq -r '.data | keys | join(" ")')" "$(cd traffic && ls -1 -- *.py | sort | paste -sd ' ')"
  assert_equal "$(obj ConfigMap locust-lib | jq -r '.data | keys | join(" ")')" "$(cd traffic/lib && ls -1 -- *.py | sort | paste -sd ' ')"
  cmp -s <(obj ConfigMap locustfiles | jq -j '.data["storefront.py"]') traffic/storefront.py || fail "storefront.py differs from traffic/storefront.py"
  # the master: storefront.py, started once every worker has connected; web UI and rendezvous
  json="$(obj Deployment locust-master)"
  assert_equal "$(jq -r '.spec.template.spec.containers[0] | "\(.image) \(.args | join(" "))"' <<<"$json")" \
    "$(env_value K8S_LOCUST_IMAGE) -f /traffic/storefront.py --master --autostart --expect-workers=$(env_value K8S_LOAD_WORKERS) --web-port=8089 --master-bind-port=5557"
  assert_equal "$(obj Service locust-master | jq -r '[.spec.ports[] | "\(.name):\(.port)"] | join(" ")')" "http:8089 master:5557"
  # the workers: K8S_LOAD_WORKERS replicas sharing RATE, each serving /metrics
  json="$(obj Deployment locust-worker)"
  assert_equal "$(jq -r '.spec.replicas' <<<"$json")" "$(env_value K8S_LOAD_WORKERS)"
  assert_equal "$(jq -r '.spec.template.spec.containers[0].args | join(" ")' <<<"$json")" \
    "-f /traffic/storefront.py --worker --master-host=locust-master --master-port=5557"
  env_of() { jq -r --arg n "$1" '.spec.template.spec.containers[0].env[] | select(.name == $n) | .value // .valueFrom.secretKeyRef.name' <<<"$json"; }
  assert_equal "$(env_of RATE) $(env_of DURATION) $(env_of LOAD_RATE_SHARE)" \
    "$(env_value K8S_LOAD_RATE) $(env_value K8S_LOAD_DURATION) $(node -p "String(1 / $(env_value K8S_LOAD_WORKERS))")"
  assert_equal "$(env_of LOAD_METRICS_HOST) $(env_of LOAD_METRICS_PORT)" "0.0.0.0 $(env_value LOAD_METRICS_PORT)"
  # the cluster as the allocator reaches it: ECK's elastic user from its secret, the HTTP CA as a file
  assert_equal "$(env_of ES_URL) $(env_of ES_EXTERNAL) $(env_of ES_USERNAME) $(env_of ES_PASSWORD) $(env_of ES_CA_CERT)" \
    "https://tenantlab-es-http:9200 1 elastic tenantlab-es-elastic-user /etc/tenantlab/es-http-ca/ca.crt"
  # both ConfigMaps in /traffic, the library in /traffic/lib
  assert_equal "$(jq -c '.spec.template.spec.volumes[] | select(.name == "traffic") | [.projected.sources[].configMap.name]' <<<"$json")" '["locustfiles","locust-lib"]'
  assert_equal "$(jq -r '.spec.template.spec.volumes[] | select(.name == "traffic") | .projected.sources[1].configMap.items | map(.path) | join(" ")' <<<"$json")" \
    "$(cd traffic/lib && ls -1 -- *.py | sort | sed 's|^|lib/|' | paste -sd ' ')"
  assert_equal "$(jq -r '.spec.template.spec.containers[0].volumeMounts[] | select(.name == "traffic") | "\(.mountPath) \(.readOnly)"' <<<"$json")" "/traffic true"
  # Prometheus finds every worker through the headless Service, in job `load`
  assert_equal "$(obj Service locust-worker | jq -r '"\(.spec.clusterIP) \(.spec.ports[0].port)"')" "None $(env_value LOAD_METRICS_PORT)"
  run docs k8s/generated/40-observability.yaml
  json="$(jq -r '.[] | select(.kind == "ConfigMap" and .metadata.name == "prometheus-config") | .data["prometheus.yml"]' <<<"$output" \
    | node -e 'console.log(JSON.stringify(require(process.argv[1]).parse(require("fs").readFileSync(0, "utf8"))))' "$REPO/node_modules/yaml")"
  assert_equal "$(jq -c '.scrape_configs[] | select(.job_name == "load") | .dns_sd_configs' <<<"$json")" \
    "[{\"names\":[\"locust-worker.$(env_value K8S_NAMESPACE).svc\"],\"type\":\"A\",\"port\":$(env_value LOAD_METRICS_PORT)}]"
  assert_equal "$(jq -c '.scrape_configs[] | select(.job_name == "load") | .static_configs' <<<"$json")" null
  # nothing writes to Prometheus any more: no remote-write receiver
  run grep -c -- '--web.enable-remote-write-receiver' k8s/generated/40-observability.yaml
  assert_output 0
}

@test "the validator is real: an unknown nodeSet field, a podTemplate typo, a wrong type and an unknown kind fail" {
  local bad="$BATS_TEST_TMPDIR/bad"
  mkdir -p "$bad"
  # an unknown field in the g1 nodeSet (after its count)
  sed '/^    - name: g1$/,/count:/ s/^\(      count: .*\)$/\1\n      replicas: 2/' k8s/generated/10-elasticsearch.yaml >"$bad/nodeset.yaml"
  grep -q '^      replicas: 2$' "$bad/nodeset.yaml" || fail "the edit did not apply"
  run clean_env k8s/validate "$bad/nodeset.yaml"
  assert_failure
  assert_output --partial "Elasticsearch tenantlab is invalid"
  assert_output --regexp "at '/spec/nodeSets/1': additional properties 'replicas' not allowed"

  # the podTemplate, which ECK's CRD leaves open, is checked as a core PodTemplateSpec
  sed 's/^\(              \)env:$/\1resourcez: {}\n\1env:/' k8s/generated/10-elasticsearch.yaml >"$bad/podtemplate.yaml"
  run clean_env k8s/validate "$bad/podtemplate.yaml"
  assert_failure
  assert_output --regexp "podTemplate/spec/containers/0': additional properties 'resourcez' not allowed"

  # the workers' replicas as a string, and a typo in their projected volume
  sed 's/^  replicas: \([0-9]*\)$/  replicas: "\1"/; s/^\(              - \)configMap:$/\1configMapz:/' k8s/generated/load/storefront.yaml >"$bad/load.yaml"
  grep -q '^  replicas: "' "$bad/load.yaml" && grep -q 'configMapz:' "$bad/load.yaml" || fail "the edits did not apply"
  run clean_env k8s/validate "$bad/load.yaml"
  assert_failure
  assert_output --partial "Deployment locust-worker is invalid"
  assert_output --partial "/spec/replicas"
  assert_output --regexp "additional properties 'configMapz' not allowed"

  sed 's/^  ports:$/  portz:/' k8s/generated/30-allocator.yaml >"$bad/service.yaml"
  run clean_env k8s/validate "$bad/service.yaml"
  assert_failure
  assert_output --regexp "Service allocator is invalid.*additional properties 'portz' not allowed"

  printf 'apiVersion: example.com/v1\nkind: Gadget\nmetadata: {name: x}\n' >"$bad/unknown.yaml"
  run clean_env k8s/validate "$bad/unknown.yaml"
  assert_failure
  assert_output --partial "could not find schema for Gadget"
}

@test "a third data node in g2 and sizes for g1 in a copy of lab.env: the nodeSets follow, still valid" {
  local copy="$BATS_TEST_TMPDIR/repo"
  repo_copy "$copy"
  write_topology_env "$copy/lab.env" es-master g1 g1 g2 g2 g2
  printf '%s\n' ES_DATA_1_CPUS=1 ES_DATA_2_CPUS=1 ES_DATA_1_MEM=1536m ES_DATA_2_MEM=1536m ES_DATA_5_HEAP=768m \
    ES_DATA_3_HEAP=768m ES_DATA_4_HEAP=768m >>"$copy/lab.env"

  run in_copy "$copy" node k8s/render.mjs --check
  assert_failure 1
  assert_output "stale: k8s/generated/10-elasticsearch.yaml (differs from what lab.env renders)"
  run in_copy "$copy" make -s render CHECK=1
  assert_failure
  assert_output --partial "stale: k8s/generated/10-elasticsearch.yaml"

  run in_copy "$copy" make -s render
  assert_success
  assert_output --partial "rendered: k8s/generated/10-elasticsearch.yaml"
  assert_equal "$(nodeset "$copy" g2 .count)" 3
  assert_equal "$(nodeset "$copy" g1 .count)" 2
  assert_equal "$(nodeset "$copy" es-master .count)" 1
  assert_equal "$(nodeset "$copy" g2 '.config["node.attr.index_group"]')" '"g2"'
  assert_equal "$(nodeset "$copy" g1 '.podTemplate.spec.containers[0].resources')" \
    '{"requests":{"cpu":"1","memory":"1536Mi"},"limits":{"cpu":"1","memory":"1536Mi"}}'
  assert_equal "$(nodeset "$copy" g2 '.podTemplate.spec.containers[0].env')" '[{"name":"ES_JAVA_OPTS","value":"-Xms768m -Xmx768m"}]'
  assert_equal "$(nodeset "$copy" g2 '.podTemplate.spec.containers[0].resources')" null
  # only the cluster's file changed
  run diff -rq "$REPO/k8s/generated" "$copy/k8s/generated"
  assert_output "Files $REPO/k8s/generated/10-elasticsearch.yaml and $copy/k8s/generated/10-elasticsearch.yaml differ"

  run clean_env k8s/validate "$copy/k8s/generated"
  assert_success
  assert_output --partial "Valid: 17, Invalid: 0, Errors: 0, Skipped: 0"
  run in_copy "$copy" node k8s/render.mjs --check
  assert_success
}

@test "a hand edit or a leftover file is stale; make render repairs both" {
  local copy="$BATS_TEST_TMPDIR/repo"
  repo_copy "$copy"
  echo "# a hand edit" >>"$copy/k8s/generated/20-kibana.yaml"
  cp "$copy/k8s/generated/20-kibana.yaml" "$copy/k8s/generated/99-old.yaml"
  run in_copy "$copy" make -s render CHECK=1
  assert_failure
  assert_line "stale: k8s/generated/20-kibana.yaml (differs from what lab.env renders)"
  assert_line "stale: k8s/generated/99-old.yaml (no longer rendered)"
  run in_copy "$copy" make -s render
  assert_success
  assert_line "removed: k8s/generated/99-old.yaml"
  run diff -r "$REPO/k8s/generated" "$copy/k8s/generated"
  assert_success
}

@test "what Kubernetes cannot express is one line naming the keys" {
  local env_file="$BATS_TEST_TMPDIR/lab.env"
  # render_with SED_SCRIPT EXPECTED: lab.env edited by SED_SCRIPT, rendered (check mode: no write)
  render_with() {
    sed "$1" "$REPO/lab.env" >"$env_file"
    run clean_env LAB_ENV_FILE="$env_file" node k8s/render.mjs --check
    assert_failure 2
    assert_equal "${#lines[@]}" 1
    assert_output "error: $env_file: $2"
  }
  render_with 's/^ES_DATA_1_ROLES=.*/&\nES_DATA_1_CPUS=0.5/' \
    "ES_DATA_1_CPUS=0.5 and ES_DATA_2_CPUS= differ: g1's nodes are one Kubernetes nodeSet, with one pod template: give every node of g1 the same size"
  render_with 's/^ES_DATA_4_ROLES=.*/&\nES_DATA_4_MEM=2g/' \
    "ES_DATA_3_MEM= and ES_DATA_4_MEM=2g differ: g2's nodes are one Kubernetes nodeSet, with one pod template: give every node of g2 the same size"
  render_with 's/^ES_DATA_\([12]\)_GROUP=.*/ES_DATA_\1_GROUP=hot_1/' \
    "ES_DATA_1_GROUP=hot_1 cannot name a Kubernetes nodeSet (lower-case letters, digits and -, no '_')"
  render_with 's/^K8S_DATA_VOLUME=.*/K8S_DATA_VOLUME=10GB/' \
    "K8S_DATA_VOLUME=10GB: want a Kubernetes quantity for each node's data volume, e.g. 10Gi"
  # a broken topology is the model's own line, as in every runtime
  render_with 's/^ES_DATA_1_ROLES=.*/ES_DATA_1_ROLES=data,injest/' \
    "ES_DATA_1_ROLES=data,injest: unknown role 'injest' (known: $(node -p 'require("fs").readFileSync("packages/contract/src/topology.js","utf8").match(/KNOWN_ROLES = Object.freeze\(\[([^\]]*)\]/)[1].replace(/[\s\x27]/g,"").split(",").filter(Boolean).join(", ")'))"
}
