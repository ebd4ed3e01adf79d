import { readSchedule, type PoolSchedule } from './pool-schedule.js';

const office: PoolSchedule = {
  timeZone: 'Europe/Berlin',
  rules: [
    { days: ['Mon', 'Tue', 'Wed', 'Thu', 'Fri'], from: '08:00', to: '18:00', warmSpares: 4 },
    { days: ['Sat', 'Sun'], from: '00:00', to: '24:00', warmSpares: 0 },
  ],
};
const utc = (text: string): number => Date.parse(text);

describe('readSchedule', () => {
  it('finds the rule of the moment in the pool time zone, and the next boundary', () => {
    // Monday 2026-01-05, 07:59 in Berlin (UTC+1).
    expect(readSchedule(office, utc('2026-01-05T06:59:00Z'))).toEqual({
      nextChangeAt: utc('2026-01-05T07:00:00Z'),
    });
    expect(readSchedule(office, utc('2026-01-05T07:00:00Z'))).toEqual({
      rule: {
        index: 0,
        warmSpares: 4,
        label: 'schedule rule 1 (Mon,Tue,Wed,Thu,Fri 08:00–18:00 Europe/Berlin)',
      },
      nextChangeAt: utc('2026-01-05T17:00:00Z'),
    });
    // Friday 18:00 in Berlin: no rule until Saturday 00:00.
    const friday = readSchedule(office, utc('2026-01-09T17:00:00Z'))!;
    expect(friday.rule).toBeUndefined();
    expect(friday.nextChangeAt).toBe(utc('2026-01-09T23:00:00Z'));
    expect(readSchedule(office, utc('2026-01-10T12:00:00Z'))!.rule?.warmSpares).toBe(0);
  });

  it('meets the boundary after a change to daylight saving time', () => {
    // Berlin moves to UTC+2 on Sunday 2026-03-29; Monday 08:00 is then 06:00 UTC.
    const sunday = readSchedule(office, utc('2026-03-29T21:30:00Z'))!;
    expect(sunday.nextChangeAt).toBe(utc('2026-03-29T22:00:00Z'));
    const night = readSchedule(office, utc('2026-03-29T22:00:00Z'))!;
    expect(night.rule).toBeUndefined();
    expect(night.nextChangeAt).toBe(utc('2026-03-30T06:00:00Z'));
  });

  it('answers nothing for a zone the runtime does not know', () => {
    expect(readSchedule({ ...office, timeZone: 'Mars/Olympus' }, Date.now())).toBeUndefined();
  });
});
