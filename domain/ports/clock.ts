/** Time as the application sees it; tests use a controllable clock instead of sleeping. */
export interface Clock {
  now(): Date;
}
