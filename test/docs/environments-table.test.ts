/**
 * docs/operating.md "Environments" states infra/settings.ts: each row of its table that renders a setting shows
 * the staging and production values of that setting, so the page cannot drift from what deploys.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { type EnvironmentSettings, environments } from '#infra/settings.ts';
import { projectRoot } from '#test/support/child-process.ts';
import { section, tableRows } from '#test/support/markdown.ts';

const onOff = (value: boolean) => (value ? 'on' : 'off');

/** The page's first cell of a row, and how that row renders an environment's settings. */
const rendered: Record<string, (settings: EnvironmentSettings) => string> = {
  'DynamoDB point-in-time recovery': (s) => onOff(s.pointInTimeRecovery),
  'DynamoDB deletion protection': (s) => onOff(s.deletionProtection),
  'Tables and log groups when removed from the stack': (s) =>
    s.removalPolicy === 'retain' ? 'retained' : 'deleted',
  'Log retention (functions, API access logs)': (s) => `${s.logRetentionDays} days`,
  '`POWERTOOLS_LOG_LEVEL`': (s) => s.logLevel,
  'API throttling (requests/s, burst)': (s) => `${s.throttling.rateLimit}, ${s.throttling.burstLimit}`,
  'Per-key throttling, default (requests/s, burst)': (s) =>
    `${s.apiKeys.throttle.rateLimit}, ${s.apiKeys.throttle.burstLimit}`,
  'New keys expire after': (s) => `${s.apiKeys.expiresInDays} days`,
  'A rotated key keeps working for': (s) => `${s.apiKeys.rotationGraceHours} hours`,
  'Reserved concurrency of each function': (s) => `${s.reservedConcurrency}`,
  'Metrics namespace': (s) => `\`${s.metricsNamespace}\``,
  'Event archive retention': (s) => `${s.events.archiveRetentionDays} days`,
};

it('docs/operating.md "Environments" shows the values of infra/settings.ts', () => {
  const page = readFileSync(join(projectRoot, 'docs/operating.md'), 'utf8');
  const rows = tableRows(section(page, 'Environments')).filter(([setting = '']) => setting in rendered);
  expect(rows.map(([setting]) => setting).sort()).toEqual(Object.keys(rendered).sort());
  for (const [setting = '', staging, production] of rows) {
    const render = rendered[setting] as (settings: EnvironmentSettings) => string;
    expect([setting, staging, production]).toEqual([
      setting,
      render(environments.staging),
      render(environments.production),
    ]);
  }
});
