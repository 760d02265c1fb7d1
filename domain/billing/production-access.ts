import { trialState, type TrialAllowance, type TrialState } from './free-trial';
import { subscriptionAllowsProduction, type Subscription } from './subscription';

export interface ProductionAccess {
  readonly allowed: boolean;
  /** What allows it: a paid plan wins over the trial, so payments under a plan never consume the trial. */
  readonly through: 'plan' | 'trial' | null;
  readonly trial: TrialState;
}

/** Whether a company may create live payments now (before the trial's payment count is taken). */
export function productionAccess(allowance: TrialAllowance, subscription: Subscription | null, now: Date): ProductionAccess {
  const trial = trialState(allowance, now);
  if (subscriptionAllowsProduction(subscription)) return { allowed: true, through: 'plan', trial };
  if (trial.status === 'active') return { allowed: true, through: 'trial', trial };
  return { allowed: false, through: null, trial };
}
