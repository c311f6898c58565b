import { realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ConfigError, loadConfig, type Config } from './config.js';
import { createLogger, type Logger } from './logger.js';

/** Loads the configuration or exits with one clear line per problem. */
export function configOrExit(env: NodeJS.ProcessEnv = process.env): Config {
  try {
    return loadConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
}

/**
 * One idempotent shutdown on SIGTERM or SIGINT. `close` gets the grace period
 * to stop taking work and finish; a hard exit follows if it hangs.
 */
export function onShutdownSignals(logger: Logger, graceMs: number, close: () => Promise<void>): void {
  let started = false;
  const shutdown = (signal: string): void => {
    if (started) return;
    started = true;
    logger.info({ signal }, 'shutting down');
    const timer = setTimeout(() => {
      logger.error({ graceMs }, 'shutdown did not finish in time; exiting');
      process.exit(1);
    }, graceMs + 10_000);
    timer.unref();
    close().then(
      () => process.exit(0),
      (err: unknown) => {
        logger.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
}

/**
 * An exception or rejection nothing caught ends the process as Node would
 * (exit 1), but through the logger: one fatal line with the error's class,
 * message and throw site, not the stack Node would print.
 */
export function onFatalErrors(logger: Logger): void {
  const die = (kind: string) => (err: unknown): void => {
    logger.fatal({ err }, kind);
    process.exit(1);
  };
  process.once('uncaughtException', die('uncaught exception; exiting'));
  process.once('unhandledRejection', die('unhandled rejection; exiting'));
}

/** True when the module at `url` is the script node was started with. */
export function isMain(url: string): boolean {
  const script = process.argv[1];
  if (!script) return false;
  try {
    return url === pathToFileURL(realpathSync(resolve(script))).href;
  } catch {
    return false;
  }
}

/** A started role: `ready`, when given, settles once it serves (an API listens before Redis is reached). */
export interface RunningRole {
  ready?: Promise<void>;
  close(): Promise<void>;
}

/**
 * Runs a process role: loads the configuration, handles signals from the
 * start (a stop during start-up, while waiting for Redis too, aborts `signal`
 * and exits cleanly), starts the role, and exits with one log line if it
 * cannot start.
 */
export async function runRole(role: string, start: (config: Config, logger: Logger, signal: AbortSignal) => Promise<RunningRole>): Promise<void> {
  const config = configOrExit();
  const logger = createLogger(config.LOG_LEVEL, { role });
  onFatalErrors(logger);
  const stopping = new AbortController();
  let running: RunningRole | undefined;
  onShutdownSignals(logger, config.SHUTDOWN_GRACE_MS, async () => {
    stopping.abort();
    await running?.close();
  });
  try {
    running = await start(config, logger, stopping.signal);
    await running.ready;
  } catch (err) {
    // A shutdown during start-up exits through its own handler.
    if (stopping.signal.aborted) return;
    logger.fatal({ reason: err instanceof Error ? err.message : String(err) }, `${role} failed to start`);
    process.exit(1);
  }
}
