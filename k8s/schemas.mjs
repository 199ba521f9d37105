#!/usr/bin/env node
// The JSON schemas kubeconform validates k8s/generated/ against, offline
// (scripts/install/k8s-schemas.sh gathers the inputs from package registries and calls this):
//
//   node k8s/schemas.mjs OUT CORE_DIR CRD_FILE...
//
// CORE_DIR: one Kubernetes version's strict schemas as the PyPI package kubernetes-validate ships
//   them (kubernetes-json-schema/v<version>-local-strict/: draft 2020-12, each kind's file pointing
//   into a shared _definitions.json through /api/_definitions.json refs, which only that package's
//   own loader resolves). Each kind of CORE_KINDS is written standalone: its refs made local and
//   the definitions it reaches ($defs) carried along, as kubeconform loads one file per kind.
// CRD_FILE: CustomResourceDefinitions (YAML, several documents allowed): each served version's
//   openAPIV3Schema becomes a JSON schema, strict as kubeconform's openapi2jsonschema makes it
//   (additionalProperties: false on every object that lists its properties and does not keep
//   unknown fields), apiVersion and kind pinned. A `podTemplate` the CRD leaves open (ECK drops
//   its schema to keep the CRD small; the API server still decodes it as a PodTemplateSpec) is
//   validated as the core PodTemplateSpec, so a typo in a container's resources fails too.
//
// Names follow kubeconform's templates (k8s/validate): core `{kind}{-group}-{version}.json`
// (deployment-apps-v1.json, service-v1.json), custom `{kind}-{group}-{version}.json`
// (elasticsearch-elasticsearch.k8s.elastic.co-v1.json), kind lower-cased.
import { mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';

// The core kinds the manifests use, and a few a user adding resources is likely to need
export const CORE_KINDS = [
  'namespace-v1', 'configmap-v1', 'secret-v1', 'service-v1', 'serviceaccount-v1',
  'persistentvolumeclaim-v1', 'deployment-apps-v1', 'statefulset-apps-v1',
];
const DRAFT = 'https://json-schema.org/draft/2020-12/schema';
const POD_TEMPLATE = 'io.k8s.api.core.v1.PodTemplateSpec';

/** Every "$ref" under value, rewritten by fn (a copy). */
function mapRefs(value, fn) {
  if (Array.isArray(value)) return value.map((v) => mapRefs(v, fn));
  if (value === null || typeof value !== 'object') return value;
  const out = {};
  for (const [k, v] of Object.entries(value)) out[k] = k === '$ref' && typeof v === 'string' ? fn(v) : mapRefs(v, fn);
  return out;
}

/** The names of the definitions value reaches, through defs, transitively. */
export function reachableDefs(value, defs) {
  const seen = new Set();
  const visit = (v) => {
    if (Array.isArray(v)) return v.forEach(visit);
    if (v === null || typeof v !== 'object') return undefined;
    for (const [k, x] of Object.entries(v)) {
      if (k === '$ref' && typeof x === 'string') {
        const name = x.replace(/^.*#\/\$defs\//, '');
        if (!seen.has(name)) {
          if (!defs[name]) throw new Error(`$ref to an unknown definition: ${x}`);
          seen.add(name);
          visit(defs[name]);
        }
      } else visit(x);
    }
    return undefined;
  };
  visit(value);
  return [...seen].sort();
}

const localRef = (ref) => ref.replace(/^[^#]*#/, '#');

/** A kind's schema of kubernetes-validate -> the same schema, standalone. */
export function standaloneCore(schema, defs) {
  const { $id, ...rest } = mapRefs(schema, localRef);
  const used = reachableDefs(rest, defs);
  const $defs = {};
  for (const name of used) $defs[name] = mapRefs(defs[name], localRef);
  return { ...rest, $schema: DRAFT, $defs };
}

/** An openAPIV3Schema (a node of it) -> the JSON schema kubeconform checks strictly. */
export function strictSchema(node, { name = '', podTemplate = null } = {}) {
  if (Array.isArray(node)) return node.map((n) => strictSchema(n, { podTemplate }));
  if (node === null || typeof node !== 'object') return node;
  if (name === 'podTemplate' && podTemplate && node['x-kubernetes-preserve-unknown-fields'] && !node.properties) {
    return { description: node.description, $ref: podTemplate };
  }
  const out = {};
  for (const [k, v] of Object.entries(node)) {
    if (k === 'properties') {
      out.properties = {};
      for (const [p, s] of Object.entries(v)) out.properties[p] = strictSchema(s, { name: p, podTemplate });
    } else if (['items', 'additionalProperties', 'not'].includes(k) && v && typeof v === 'object') {
      out[k] = strictSchema(v, { podTemplate });
    } else if (['allOf', 'anyOf', 'oneOf'].includes(k)) {
      out[k] = v.map((s) => strictSchema(s, { podTemplate }));
    } else {
      out[k] = v;
    }
  }
  if (node['x-kubernetes-int-or-string'] && !node.anyOf && !node.oneOf) out.type = ['integer', 'string'];
  if (node.nullable === true && out.type !== undefined) out.type = [...new Set([out.type].flat().concat('null'))];
  if (node.properties && node.additionalProperties === undefined && !node['x-kubernetes-preserve-unknown-fields']) {
    out.additionalProperties = false;
  }
  return out;
}

/** A CRD (parsed) -> [{ file, schema }], one per served version. */
export function crdSchemas(crd, defs) {
  if (crd?.kind !== 'CustomResourceDefinition') return [];
  const { group, names: { kind } } = crd.spec;
  const out = [];
  for (const version of crd.spec.versions ?? []) {
    if (version.served === false || !version.schema?.openAPIV3Schema) continue;
    const schema = strictSchema(version.schema.openAPIV3Schema, { podTemplate: `#/$defs/${POD_TEMPLATE}` });
    schema.properties = {
      ...schema.properties,
      apiVersion: { type: 'string', enum: [`${group}/${version.name}`] },
      kind: { type: 'string', enum: [kind] },
    };
    const used = reachableDefs(schema, defs);
    const $defs = {};
    for (const name of used) $defs[name] = mapRefs(defs[name], localRef);
    out.push({
      file: `${kind.toLowerCase()}-${group}-${version.name}.json`,
      schema: { $schema: DRAFT, ...schema, ...(used.length ? { $defs } : {}) },
    });
  }
  return out;
}

function main([outDir, coreDir, ...crdFiles]) {
  if (!outDir || !coreDir || crdFiles.length === 0) {
    process.stderr.write('usage: k8s/schemas.mjs OUT CORE_DIR CRD_FILE...\n');
    return 2;
  }
  mkdirSync(outDir, { recursive: true });
  const defs = JSON.parse(readFileSync(join(coreDir, '_definitions.json'), 'utf8')).$defs;
  if (!defs?.[POD_TEMPLATE]) throw new Error(`${coreDir}/_definitions.json has no ${POD_TEMPLATE}`);
  const written = [];
  for (const name of CORE_KINDS) {
    const schema = JSON.parse(readFileSync(join(coreDir, `${name}.json`), 'utf8'));
    writeFileSync(join(outDir, `${name}.json`), JSON.stringify(standaloneCore(schema, defs)));
    written.push(`${name}.json`);
  }
  for (const file of crdFiles) {
    for (const doc of parseAllDocuments(readFileSync(file, 'utf8'))) {
      if (doc.errors.length) throw new Error(`${file}: ${doc.errors[0].message}`);
      for (const { file: out, schema } of crdSchemas(doc.toJS(), defs)) {
        writeFileSync(join(outDir, out), JSON.stringify(schema));
        written.push(out);
      }
    }
  }
  process.stderr.write(`k8s schemas: ${written.length} written to ${outDir}\n`);
  return 0;
}

// Run as a program (not imported), compared through realpath as runtimes/compose/render.mjs does
if (process.argv[1] && realpathSync(process.argv[1]) === realpathSync(fileURLToPath(import.meta.url))) {
  process.exitCode = main(process.argv.slice(2));
}
