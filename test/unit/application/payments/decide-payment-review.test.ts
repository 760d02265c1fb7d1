import { expect } from 'chai';
import { DecidePaymentReview } from '../../../../application/payments/decide-payment-review';
import type { ResumeFlowRunCommand } from '../../../../application/payments/resume-flow-run';
import type { PaymentObject } from '../../../../application/payments/payment-object';
import { DomainError } from '../../../../domain/shared/domain-error';

const scope = { organizationId: 'org_1', environment: 'sandbox' as const };
const answered = { id: 'pay_1', status: 'captured' } as unknown as PaymentObject;

/** A ResumeFlowRun stand-in that records each command and answers (or refuses) as scripted. */
function fakeResume(refuse?: DomainError) {
  const commands: ResumeFlowRunCommand[] = [];
  return {
    commands,
    async execute(command: ResumeFlowRunCommand): Promise<PaymentObject> {
      commands.push(command);
      if (refuse) throw refuse;
      return answered;
    },
  };
}

describe('DecidePaymentReview', () => {
  it('approve resumes the run with review_decision approved and the note, answering the payment as it went on', async () => {
    const resume = fakeResume();
    const payment = await new DecidePaymentReview(resume).execute({ scope, paymentId: 'pay_1', decision: 'approve', note: 'ok by phone' });
    expect(payment).to.equal(answered);
    expect(resume.commands).to.deep.equal([{ scope, paymentId: 'pay_1', input: { kind: 'review_decision', decision: 'approved', note: 'ok by phone' } }]);
  });

  it('decline resumes it by the declined exit; an empty note is left out', async () => {
    const resume = fakeResume();
    await new DecidePaymentReview(resume).execute({ scope, paymentId: 'pay_1', decision: 'decline', note: null });
    expect(resume.commands[0]!.input).to.deep.equal({ kind: 'review_decision', decision: 'declined' });
  });

  it('a note over 500 characters or an unknown decision is refused before anything resumes', async () => {
    const resume = fakeResume();
    const use = new DecidePaymentReview(resume);
    await expect(use.execute({ scope, paymentId: 'pay_1', decision: 'approve', note: 'x'.repeat(501) })).to.be.rejectedWith(DomainError, /at most 500/);
    await expect(use.execute({ scope, paymentId: 'pay_1', decision: 'maybe' as 'approve' })).to.be.rejectedWith(DomainError, /approve or decline/);
    expect(resume.commands).to.deep.equal([]);
  });

  it('a payment not waiting for a review (or just decided) is invalid_state, said as such', async () => {
    const resume = fakeResume(new DomainError('invalid_state', 'The flow run waits for timer at node d, not for review_decision.'));
    const refusal = await new DecidePaymentReview(resume).execute({ scope, paymentId: 'pay_1', decision: 'approve' }).catch((e: unknown) => e);
    expect(refusal).to.be.instanceOf(DomainError).and.to.include({ code: 'invalid_state' });
    expect((refusal as Error).message).to.match(/not held at a review step/);
  });

  it('other refusals pass through unchanged (not_found)', async () => {
    const missing = new DomainError('not_found', 'No payment pay_9.');
    const resume = fakeResume(missing);
    await expect(new DecidePaymentReview(resume).execute({ scope, paymentId: 'pay_9', decision: 'approve' })).to.be.rejectedWith(missing);
  });
});
