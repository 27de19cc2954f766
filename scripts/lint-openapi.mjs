#!/usr/bin/env node
// Lints the published OpenAPI documents (openapi/*.json, kept equal to what the server serves by the
// snapshot test) with Redocly CLI `recommended` and Spectral `spectral:oas`. Any error or warning fails.
import { spawnSync } from 'node:child_process';

const documents =
  process.argv.length > 2 ? process.argv.slice(2) : ['openapi/partner.json', 'openapi/operator.json'];
const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' };
let failed = false;

for (const document of documents) {
  const redocly = spawnSync('npx', ['--no', 'redocly', 'lint', document, '--format=json'], {
    env,
    encoding: 'utf8',
  });
  let problems;
  try {
    problems = JSON.parse(redocly.stdout.slice(redocly.stdout.indexOf('{'))).problems;
  } catch {
    console.error(`redocly lint ${document} did not answer JSON:\n${redocly.stdout}${redocly.stderr}`);
    process.exit(1);
  }
  for (const problem of problems)
    console.error(`redocly ${document}: ${problem.severity} ${problem.ruleId}: ${problem.message}`);
  console.log(`redocly recommended, ${document}: ${problems.length} problems`);
  failed ||= problems.length > 0;

  const spectral = spawnSync(
    'npx',
    ['--no', 'spectral', 'lint', document, '--ruleset', '.spectral.yaml', '--format', 'json', '--quiet'],
    { env, encoding: 'utf8' },
  );
  let results;
  try {
    results = JSON.parse(spectral.stdout || '[]');
  } catch {
    console.error(`spectral lint ${document} did not answer JSON:\n${spectral.stdout}${spectral.stderr}`);
    process.exit(1);
  }
  for (const result of results)
    console.error(`spectral ${document}: ${result.code}: ${result.message} at ${result.path.join('.')}`);
  console.log(`spectral spectral:oas, ${document}: ${results.length} problems`);
  failed ||= results.length > 0;
}
process.exit(failed ? 1 : 0);
