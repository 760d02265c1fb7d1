/**
 * The template adapter with QueryCharge left out, as the adapter a partner shipped without it: grpc-js answers
 * UNIMPLEMENTED for the missing RPC. The connector contract must fail it (run-connector-contract.test.ts).
 */
import { TemplateAdapter, startTemplateAdapter } from '../../../connector-template/src/server';

const { QueryCharge: _left_out, ...withoutQueryCharge } = new TemplateAdapter().service;

startTemplateAdapter({ port: 0, implementation: withoutQueryCharge }).then((running) => {
  console.log(`template acquirer adapter listening on ${running.address}`);
  process.once('SIGTERM', () => void running.stop().then(() => process.exit(0)));
});
