import path from 'node:path';
import { parseArgs } from 'node:util';
import { createInterface } from 'node:readline/promises';
import { ConfigError, loadKernelConfig, SERVICE_NAMES, type ServiceName } from '../kernel/config.ts';
import { HttpError } from '../kernel/errors.ts';
import { createLogger } from '../kernel/logger.ts';
import type { PluginCommand } from '../kernel/plugin.ts';

// Each command imports what it uses when it runs: `cms start` opens its database before it loads the
// kernel and the plugins (runtime/start.ts), and `cms plugin new` loads neither.

const USAGE = `usage:
  cms start [--service core-api|asset-processor|gateway]   all plugins on one port (3000) by default
  cms migrate                                               apply every pending migration
  cms plugins [--service core-api|asset-processor|gateway]  the plugins a process loads, in start order,
                                                            with what each needs, offers and collects
  cms admin create --email <e-mail> [--name <name>]         create an administrator (password from
                                                            CMS_ADMIN_PASSWORD or asked for)
  cms plugin new <id> [--dir <folder>]                      write an external plugin folder <folder>/<id>
                                                            (default folder: .) to start with
                                                            CMS_PLUGIN_PATH=<folder>
Without DATABASE_URL, migrate and admin create use the embedded PostgreSQL of CMS_DATA_DIR: that of
the running server when there is one, otherwise they start it and stop it again.`;

/** The kernel's own commands; any other name is looked up among the loaded plugins' `commands`. */
const KERNEL_COMMANDS = new Set(['start', 'migrate', 'plugins', 'admin', 'plugin']);

export async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  try {
    if (command === 'start') return await start(rest);
    if (command === 'migrate') return await migrate();
    if (command === 'plugins') return await plugins(rest);
    if (command === 'admin' && rest[0] === 'create') return await createAdmin(rest.slice(1));
    if (command === 'plugin' && rest[0] === 'new') return await newPlugin(rest.slice(1));
    const commands = await pluginCommands();
    const own = command && !KERNEL_COMMANDS.has(command) ? commands.find((c) => c.name === command) : undefined;
    if (own) return await own.run(rest);
    console.error(usage(commands));
    process.exitCode = 2;
  } catch (err) {
    if (err instanceof ConfigError || err instanceof HttpError) {
      console.error(`cms: ${err.message}`);
      process.exit(1);
    }
    throw err;
  }
}

async function start(args: string[]): Promise<void> {
  const { values } = parseArgs({ args, options: { service: { type: 'string' } } });
  const { startProcess } = await import('./start.ts');
  await startProcess((values.service ?? 'all') as ServiceName | 'all');
}

async function plugins(args: string[]): Promise<void> {
  const { values } = parseArgs({ args, options: { service: { type: 'string' } } });
  const service = (values.service ?? 'all') as ServiceName | 'all';
  if (service !== 'all' && !SERVICE_NAMES.includes(service))
    throw new ConfigError(`unknown service "${service}"; one of ${SERVICE_NAMES.join(', ')}`);
  const { describePluginSet } = await import('../kernel/plugin-graph.ts');
  console.log(await describePluginSet(service));
}

/**
 * The commands of every plugin `cms start` would load (CMS_PLUGIN_PATH and CMS_DISABLED_PLUGINS
 * apply), in start order; none when the configuration cannot be read (the usage says the rest).
 */
async function pluginCommands(): Promise<PluginCommand[]> {
  const { resolvePluginSet } = await import('../kernel/kernel.ts');
  let config: ReturnType<typeof loadKernelConfig>;
  try {
    config = loadKernelConfig(process.env);
  } catch {
    return [];
  }
  const plugins = await resolvePluginSet({ service: 'all' }, config);
  return plugins.flatMap((p) => (p.commands ?? []).filter((c) => !KERNEL_COMMANDS.has(c.name)));
}

/** The usage text: the kernel's commands, then each plugin command with its arguments and summary. */
function usage(commands: readonly PluginCommand[]): string {
  const width = 60;
  const lines = commands.flatMap((c) => {
    const [first, ...more] = c.summary.split('\n');
    const head = `  cms ${c.name} ${c.args}`.padEnd(width);
    return [`${head}${first}`, ...more.map((line) => `${' '.repeat(width)}${line}`)];
  });
  if (!lines.length) return USAGE;
  const [commandsPart, footer] = USAGE.split('\nWithout DATABASE_URL');
  return `${commandsPart}\n${lines.join('\n')}\nWithout DATABASE_URL${footer}`;
}

async function newPlugin(args: string[]): Promise<void> {
  const { values, positionals } = parseArgs({ args, options: { dir: { type: 'string' } }, allowPositionals: true });
  if (positionals.length !== 1) throw new ConfigError('usage: cms plugin new <id> [--dir <folder>]');
  const dir = values.dir ?? '.';
  const { scaffoldPlugin } = await import('./plugin-scaffold.ts');
  const written = scaffoldPlugin(positionals[0], dir);
  console.log(`wrote:\n  ${written.join('\n  ')}\nstart it with CMS_PLUGIN_PATH=${path.resolve(dir)}`);
}

async function migrate(): Promise<void> {
  const { migrateDatabase, migrationSets, openDatabase, resolvePluginSet } = await commandModules();
  const config = loadKernelConfig(process.env);
  const logger = createLogger(config.LOG_LEVEL);
  const plugins = await resolvePluginSet({ service: 'all' }, config);
  const database = await openDatabase(config, logger);
  try {
    const applied = await migrateDatabase(database, migrationSets(plugins), config.AUDIT_RETENTION_DAYS, logger);
    console.log(applied.length ? `applied:\n  ${applied.join('\n  ')}` : 'nothing to apply');
  } finally {
    await database.close();
  }
}

async function createAdmin(args: string[]): Promise<void> {
  const { values } = parseArgs({ args, options: { email: { type: 'string' }, name: { type: 'string' } } });
  if (!values.email) throw new ConfigError('--email is required');
  const { migrateDatabase, migrationSets, openDatabase, resolvePluginSet, UserDirectory } = await commandModules();
  const config = loadKernelConfig(process.env);
  const logger = createLogger(config.LOG_LEVEL);
  let password = process.env.CMS_ADMIN_PASSWORD;
  if (!password) {
    const rl = createInterface({ input: process.stdin, output: process.stdout });
    password = await rl.question('Password: ');
    rl.close();
  }
  const plugins = await resolvePluginSet({ service: 'all' }, config);
  const database = await openDatabase(config, logger);
  try {
    await migrateDatabase(database, migrationSets(plugins), config.AUDIT_RETENTION_DAYS, logger);
    const { id } = await new UserDirectory({ db: database.db }).create({
      email: values.email,
      password,
      displayName: values.name ?? 'Administrator',
      roles: ['admin'],
    });
    console.log(`administrator ${values.email} created (${id})`);
  } finally {
    await database.close();
  }
}

/** What `migrate` and `admin create` use: the kernel's migrations and users, the runtime's database. */
async function commandModules() {
  const [{ migrateDatabase }, { migrationSets, resolvePluginSet }, { UserDirectory }, { openDatabase }] =
    await Promise.all([
      import('../kernel/database.ts'),
      import('../kernel/kernel.ts'),
      import('../kernel/users.ts'),
      import('./database.ts'),
    ]);
  return { migrateDatabase, migrationSets, resolvePluginSet, UserDirectory, openDatabase };
}
