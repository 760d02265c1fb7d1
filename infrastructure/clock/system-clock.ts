import type { Clock } from '../../domain/ports/clock';

export class SystemClock implements Clock {
  now(): Date {
    return new Date();
  }
}

/** A clock tests move by hand, so time-based rules are checked without sleeping. */
export class ManualClock implements Clock {
  constructor(private current: Date = new Date()) {}
  now(): Date {
    return new Date(this.current.getTime());
  }
  set(at: Date): void {
    this.current = new Date(at.getTime());
  }
  advance(milliseconds: number): void {
    this.current = new Date(this.current.getTime() + milliseconds);
  }
}
