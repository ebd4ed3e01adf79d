import { describe, expect, it } from '@jest/globals';
import { versionStreamSettings } from './stream-settings.js';

describe('the version stream settings', () => {
  it('default to the public update service every 5 minutes', () => {
    const problems: string[] = [];
    expect(versionStreamSettings({}, {}, problems)).toMatchObject({
      updateServiceUrl: 'https://api.openshift.com',
      intervalMs: 300_000,
    });
    expect(problems).toEqual([]);
  });

  it('take a mirror and an interval from flags before the environment', () => {
    const problems: string[] = [];
    const settings = versionStreamSettings(
      {
        updateServiceUrl: 'http://updates.mirror.example:8080/osus/',
        versionStreamInterval: '90s',
      },
      { UPDATE_SERVICE_URL: 'https://ignored.example', VERSION_STREAM_INTERVAL: '1h' },
      problems,
    );
    expect(settings).toMatchObject({
      updateServiceUrl: 'http://updates.mirror.example:8080/osus',
      intervalMs: 90_000,
    });
    expect(problems).toEqual([]);
    expect(versionStreamSettings({}, { VERSION_STREAM_INTERVAL: '1h' }, []).intervalMs).toBe(
      3_600_000,
    );
  });

  it('name the setting and the value given when they are wrong', () => {
    const problems: string[] = [];
    versionStreamSettings(
      { updateServiceUrl: 'file:///etc/passwd', versionStreamInterval: '1s' },
      {},
      problems,
    );
    expect(problems).toEqual([
      '--update-service-url (UPDATE_SERVICE_URL) must be an http(s) URL without query (got "file:///etc/passwd")',
      '--version-stream-interval (VERSION_STREAM_INTERVAL) must be a duration of at least 10s, such as 5m (got "1s")',
    ]);
  });
});
