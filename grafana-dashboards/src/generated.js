// Every file the build generates, as { path (relative to grafana-dashboards/): text }: the
// dashboards' JSON and the datasource provisioning file. Pure: no file system here.
import { datasourceProvisioning } from './datasource.js';
import { DASHBOARDS } from './dashboards/index.js';

/** The folder Grafana's file provider loads (dashboards/provider.yml beside the JSON). */
export const DASHBOARDS_DIR = 'dashboards';
export const DATASOURCE_FILE = 'datasources/prometheus.yml';

export function generatedFiles(labEnv) {
  const files = {};
  for (const [file, build] of Object.entries(DASHBOARDS)) {
    files[`${DASHBOARDS_DIR}/${file}`] = `${JSON.stringify(build(), null, 2)}\n`;
  }
  files[DATASOURCE_FILE] = datasourceProvisioning(labEnv);
  return files;
}
