import { describe, expect, it } from '@jest/globals';
import { LruMap } from './lru-map.js';

describe('LruMap', () => {
  it('holds at most its bound, forgetting the least recently used (a read counts as use)', () => {
    const map = new LruMap<number>(3);
    map.set('a', 1);
    map.set('b', 2);
    map.set('c', 3);
    expect(map.get('a')).toBe(1);
    map.set('d', 4);
    expect(map.size).toBe(3);
    expect(map.get('b')).toBeUndefined();
    expect([map.get('a'), map.get('c'), map.get('d')]).toEqual([1, 3, 4]);
    // Setting a key again replaces it without growing.
    map.set('a', 10);
    expect(map.size).toBe(3);
    expect(map.get('a')).toBe(10);
    map.delete('a');
    expect(map.get('a')).toBeUndefined();
  });
});
