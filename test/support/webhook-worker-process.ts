/**
 * A webhook worker as its own process (fan-out consumer + delivery dispatcher), configured from the
 * environment like `main.ts worker`, so a test can SIGKILL it mid-burst. Prints "ready" once started.
 */
import { openInfrastructure } from '../../infrastructure/main/bootstrap';
import { moduleList } from '../../infrastructure/main/module';
import { assembleService } from '../../infrastructure/main/service';
import { webhooksModule } from '../../infrastructure/main/webhooks.module';

async function run(): Promise<void> {
  const infrastructure = await openInfrastructure({ startAdapters: false });
  const service = await assembleService(
    infrastructure.core,
    moduleList().with(webhooksModule({ pollIntervalMs: 100, workerId: process.env.WORKER_ID })),
    { edge: false, worker: true },
    null,
  );
  process.stdout.write('ready\n');
  process.on('SIGTERM', () => {
    void service.stop().then(() => infrastructure.close()).then(() => process.exit(0));
  });
}

run().catch((error) => {
  console.error(error);
  process.exit(1);
});
