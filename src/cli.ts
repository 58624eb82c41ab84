/**
 * Operator CLI: `npm run -s cli -- <command> [options]` (src/cli/main.ts is the program).
 *
 * Most of a command's time is Node compiling the code it loads (MikroORM, pg, zod, this project's
 * TypeScript). Node's on-disk compile cache is switched on here, before anything else is loaded, so
 * every later run reuses that work; the cache (under the system's temporary directory, or
 * NODE_COMPILE_CACHE) is keyed by each file's contents, so a changed file is compiled afresh.
 */
import module from 'node:module';

module.enableCompileCache?.();
await import('./cli/main.ts');
