#!/usr/bin/env bats
# The storefront's analysis in the lab's runtime (native: the analysis-lab module, es-distribution/analysis;
# compose: the image's module): analysis-common's component names answer _analyze with the
# tokens the official module gives (tests/fixtures/analysis/tokens.json, most of them the
# reference's own examples); the products template carries the analysis and an index made from
# it has the `.partial` subfields; a product is found by a partial word and by a SKU prefix
# through the storefront's own search fields; bad analysis settings are a 400 naming the problem.

setup_file() {
  load ../lib/lab
  cd "$REPO" || return 1
  export AT="antest-$$"
  local out base
  out="$(api POST /tenants "{\"id\":\"$AT\",\"name\":\"$AT\",\"expected_products\":40}")"
  [[ "$out" == 20[01]* ]] || { echo "cannot create tenant $AT: $out" >&2; return 1; }
  base="$(($(date +%s%3N) - 1000))"
  bulk "" "$(jq -nc --arg t "$AT" --argjson n 40 --argjson base "$base" -f tests/fixtures/traffic/catalog.jq | bulk_lines)"$'\n' "refresh=wait_for"
}

teardown_file() {
  load ../lib/lab
  api DELETE "/tenants/$AT" >/dev/null 2>&1 || true
}

setup() {
  load ../lib/lab
  cd "$REPO" || return 1
}

# es_status METHOD PATH [JSON]: "STATUS BODY", whatever the status
es_status() {
  local out
  out="$(curl -sS --max-time 30 -o /dev/stdout -w '\n%{http_code}' -X "$1" "$ES$2" ${3:+-H 'content-type: application/json' -d "$3"})" || return 1
  echo "$(tail -n1 <<<"$out") $(sed '$d' <<<"$out")"
}

# storefront_search TEXT: the storefront's keyword search body (its own search fields) for TEXT
storefront_search() {
  local fields
  fields="$(node -e "import('$REPO/packages/contract/src/storefront.js').then((m) => console.log(JSON.stringify(m.SEARCH_FIELDS)))")"
  jq -nc --arg q "$1" --argjson f "$fields" '{size: 50, _source: ["name", "sku"], query: {simple_query_string: {query: $q, fields: $f, default_operator: "and"}}}'
}

@test "_analyze: every component answers with the official module's tokens" {
  local n i what got want
  n="$(jq length tests/fixtures/analysis/tokens.json)"
  for ((i = 0; i < n; i++)); do
    what="$(jq -r ".[$i].what" tests/fixtures/analysis/tokens.json)"
    got="$(es POST /_analyze "$(jq -c ".[$i].request" tests/fixtures/analysis/tokens.json)" | jq -c '[.tokens[]?.token]')"
    want="$(jq -c ".[$i].tokens" tests/fixtures/analysis/tokens.json)"
    [[ "$got" == "$want" ]] || fail "$what: got $got, want $want"
  done
}

@test "the products template carries the analysis; the tenant's index has the .partial subfields and the SKU normalizer" {
  local index mapping
  run es GET "/_index_template/*products"
  assert_success
  assert_equal "$(jq -r '[.index_templates[].index_template.template.settings.index.analysis.analyzer | keys[]] | sort | unique | join(",")' <<<"$output")" \
    "default,partial_search,partial_words,sku_partial,sku_search"
  index="$(api GET "/tenants/$AT" | cut -d' ' -f2- | jq -r .index)"
  mapping="$(es GET "/$index/_mapping" | jq -c --arg i "$index" '.[$i].mappings.properties')"
  assert_equal "$(jq -r '.name.fields.partial.analyzer, .name.fields.partial.search_analyzer' <<<"$mapping" | paste -sd,)" "partial_words,partial_search"
  assert_equal "$(jq -r '.keywords.fields.partial.analyzer' <<<"$mapping")" partial_words
  assert_equal "$(jq -r '.sku.normalizer, .sku.fields.partial.analyzer, .sku.fields.partial.search_analyzer' <<<"$mapping" | paste -sd,)" "storefront_keyword,sku_partial,sku_search"
  # the template's analyzers on a real index: word prefixes, folded; the whole SKU's prefixes
  run es POST "/$index/_analyze" '{"analyzer": "partial_words", "text": "Crème Brûlée"}'
  assert_equal "$(jq -c '[.tokens[].token]' <<<"$output")" '["cr","cre","crem","creme","br","bru","brul","brule","brulee"]'
  run es POST "/$index/_analyze" '{"analyzer": "sku_partial", "text": "SKU-A1"}'
  assert_equal "$(jq -c '[.tokens[].token]' <<<"$output")" '["sk","sku","sku-","sku-a","sku-a1"]'
  run es POST "/$index/_analyze" '{"normalizer": "storefront_keyword", "text": "ÇA-Ira"}'
  assert_equal "$(jq -c '[.tokens[].token]' <<<"$output")" '["ca-ira"]'
  # and the template validates as a whole (what an index of its pattern would get)
  run es POST "/_index_template/_simulate_index/$(sed 's/-s[0-9]*$//' <<<"$index")-s9999"
  assert_success
  assert_equal "$(jq -r '.template.settings.index.analysis.tokenizer.sku_prefixes.type' <<<"$output")" edge_ngram
}

@test "a product is found by a partial word and by a SKU prefix (the storefront's search fields); the full fields alone do not find them" {
  local alias
  alias="$(alias_of "$AT")"
  # "northw clas": half-typed brand and adjective (catalog.jq: product i's brand is the i mod 6th,
  # its adjective the (i / 3) mod 6th: Northwind is i = 1, 7, 13, ...; classic is i = 1, 2, 18-20, 36-38)
  run es POST "/$alias/_search" "$(storefront_search "northw clas")"
  assert_success
  [[ "$(jq '.hits.total.value' <<<"$output")" -gt 0 ]] || fail "no hit for a partial word: $output"
  assert_equal "$(jq -r '[.hits.hits[]._source.name | test("^Northwind classic ")] | all' <<<"$output")" true
  run es POST "/$alias/_search" '{"query": {"simple_query_string": {"query": "northw clas", "fields": ["name", "keywords", "brand_name"], "default_operator": "and"}}}'
  assert_equal "$(jq '.hits.total.value' <<<"$output")" 0
  # a SKU prefix, typed in lower case: SKU-<TENANT>-1 finds 1 and 10-19
  run es POST "/$alias/_search" "$(storefront_search "sku-${AT,,}-1")"
  assert_equal "$(jq -r '[.hits.hits[]._source.sku] | sort | join(",")' <<<"$output")" \
    "$(for i in 1 10 11 12 13 14 15 16 17 18 19; do printf 'SKU-%s-%s\n' "${AT^^}" "$i"; done | sort | paste -sd,)"
  # a whole SKU in lower case: the keyword's normalizer finds exactly it
  run es POST "/$alias/_search" "{\"query\": {\"term\": {\"sku\": \"sku-${AT,,}-7\"}}}"
  assert_equal "$(jq -r '[.hits.hits[]._source.sku] | join(",")' <<<"$output")" "SKU-${AT^^}-7"
}

@test "bad analysis settings are a 400 naming the problem, and no index is left" {
  local index="antest-bad-$$"
  run es_status PUT "/$index" '{"settings": {"analysis": {"filter": {"s": {"type": "synonym"}}, "analyzer": {"a": {"tokenizer": "standard", "filter": ["s"]}}}}}'
  assert_output --regexp '^400 '
  assert_output --partial 'synonym requires either `synonyms` or `synonyms_path` to be configured'
  run es_status PUT "/$index" '{"settings": {"analysis": {"tokenizer": {"t": {"type": "edge_ngram", "token_chars": ["letters"]}}, "analyzer": {"a": {"tokenizer": "t"}}}}}'
  assert_output --regexp '^400 '
  assert_output --partial "Unknown token type: 'letters'"
  run es_status GET "/$index"
  assert_output --regexp '^404 '
}
