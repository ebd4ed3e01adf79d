import { describe, expect, test } from '@jest/globals';
import { parseOpenshiftVersion } from './bundle-info.js';

describe('crc-bundle-info.json', () => {
  test('reads .clusterInfo.openshiftVersion', () => {
    const info = JSON.stringify({ clusterInfo: { openshiftVersion: '4.16.7' }, version: '1.4' });
    expect(parseOpenshiftVersion(info, 'info.json')).toBe('4.16.7');
  });

  test.each([
    ['{"clusterInfo":{"openshiftVersion":""}}', 'has no .clusterInfo.openshiftVersion'],
    ['{"clusterInfo":{"openshiftVersion":"null"}}', 'has no .clusterInfo.openshiftVersion'],
    ['{"clusterInfo":{"openshiftVersion":null}}', 'has no .clusterInfo.openshiftVersion'],
    ['{"clusterInfo":{}}', 'has no .clusterInfo.openshiftVersion'],
    ['null', 'has no .clusterInfo.openshiftVersion'],
    ['{', 'is not valid JSON'],
  ])('%s fails', (text, message) => {
    expect(() => parseOpenshiftVersion(text, 'info.json')).toThrow(`info.json ${message}`);
  });
});
