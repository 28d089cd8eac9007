import { describe, expect, it } from 'vitest';
import { computeCapability, computeName, parseArchitecture, smName } from './architecture.js';
import { UnsupportedArchitectureError } from './errors.js';

describe('parseArchitecture', () => {
  it('reads sm_, compute_ and lto_ names with their suffixes', () => {
    expect(parseArchitecture('sm_90')).toEqual({ major: 9, minor: 0, suffix: '' });
    expect(parseArchitecture('sm_90a')).toEqual({ major: 9, minor: 0, suffix: 'a' });
    expect(parseArchitecture('compute_100f')).toEqual({ major: 10, minor: 0, suffix: 'f' });
    expect(parseArchitecture('compute_75')).toEqual({ major: 7, minor: 5, suffix: '' });
    expect(parseArchitecture('sm_121')).toEqual({ major: 12, minor: 1, suffix: '' });
    expect(parseArchitecture('lto_89')).toEqual({ major: 8, minor: 9, suffix: '' });
  });

  it('reads compute capabilities as numbers and dotted strings', () => {
    expect(parseArchitecture(90)).toEqual({ major: 9, minor: 0, suffix: '' });
    expect(parseArchitecture(120)).toEqual({ major: 12, minor: 0, suffix: '' });
    expect(parseArchitecture('8.6')).toEqual({ major: 8, minor: 6, suffix: '' });
  });

  it('names what it refuses', () => {
    for (const bad of ['sm90', 'sm_9', 'gfx90a', 'sm_90x', 9.5, -90, '', null]) {
      expect(() => parseArchitecture(bad)).toThrow(UnsupportedArchitectureError);
    }
  });

  it('writes the real and virtual names back', () => {
    const a = parseArchitecture('sm_90a');
    expect([smName(a), computeName(a), computeCapability(a)]).toEqual(['sm_90a', 'compute_90a', 90]);
    expect(smName(parseArchitecture(100))).toBe('sm_100');
  });
});
