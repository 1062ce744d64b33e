// The house's shape as data (ARCHITECTURE.md: Layout): the import graph of the service's own TypeScript, the arrows
// that point outward, the circles and the hand-written functions over the line limit. test/unit/architecture.test.ts
// holds the rules to it; a planted fixture tree proves each check can fail.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';

/** The rooms the rules speak of; the top-level folder of a file is its room. */
export const SERVICE_ROOMS = ['domain', 'store', 'integrations', 'compute', 'activities', 'workflows', 'api', 'runtime'] as const;
/** STYLE.md / PREAMBLE: a hand-written function stays within this many lines. */
export const FUNCTION_LINES_MAX = 70;

export type Edge = { from: string; to: string; type_only: boolean };
export type Graph = { files: string[]; edges: Edge[] };
export type LongFunction = { file: string; name: string; lines: number };

function walk(dir: string, out: string[]): void {
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name.startsWith('.')) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) walk(path, out);
    else if ((name.endsWith('.ts') || name.endsWith('.tsx')) && !name.endsWith('.d.ts')) out.push(path);
  }
}

/**
 * The hand-written TypeScript outside the service: the web app and the clients. Their functions keep the same line
 * limit; the generated SDK (`clients/sdk/src/generated/`) is outside it.
 */
export const CLIENT_ROOMS = ['web/src', 'clients/cli/src', 'clients/sdk/src', 'clients/sdk/scripts', 'clients/sdk/examples'] as const;

export function isGenerated(file: string): boolean {
  return file.includes('/generated/') || file.endsWith('.gen.ts');
}

/** Every TypeScript file of the named folders, as paths relative to root with forward slashes. */
export function sourceFiles(root: string, rooms: readonly string[] = SERVICE_ROOMS): string[] {
  const files: string[] = [];
  for (const room of rooms) {
    try {
      walk(join(root, room), files);
    } catch {
      // a room that does not exist (in a fixture tree) has no files
    }
  }
  return files.map((file) => relative(root, file).split(sep).join('/')).sort();
}

function namedImportsAllTypes(clause: ts.ImportClause | undefined): boolean {
  if (!clause) return false;
  if (clause.isTypeOnly) return true;
  if (clause.name) return false;
  const bindings = clause.namedBindings;
  return bindings !== undefined && ts.isNamedImports(bindings) && bindings.elements.length > 0 && bindings.elements.every((e) => e.isTypeOnly);
}

/** The module specifiers a file imports, static, re-exported and dynamic, each marked type-only or not. */
export function importsOf(source: ts.SourceFile): Array<{ specifier: string; type_only: boolean }> {
  const found: Array<{ specifier: string; type_only: boolean }> = [];
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      found.push({ specifier: node.moduleSpecifier.text, type_only: namedImportsAllTypes(node.importClause) });
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      found.push({ specifier: node.moduleSpecifier.text, type_only: node.isTypeOnly });
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [argument] = node.arguments;
      if (argument && ts.isStringLiteralLike(argument)) found.push({ specifier: argument.text, type_only: false });
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      found.push({ specifier: node.argument.literal.text, type_only: true });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

function parse(root: string, file: string): ts.SourceFile {
  const kind = file.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
  return ts.createSourceFile(file, readFileSync(join(root, file), 'utf8'), ts.ScriptTarget.Latest, true, kind);
}

/** The import graph between the given files (relative imports only; packages are outside the rules). */
export function importGraph(root: string, files: string[]): Graph {
  const known = new Set(files);
  const edges: Edge[] = [];
  for (const file of files) {
    for (const { specifier, type_only } of importsOf(parse(root, file))) {
      if (!specifier.startsWith('.')) continue;
      const target = relative(root, resolve(root, dirname(file), specifier))
        .split(sep)
        .join('/');
      if (known.has(target)) edges.push({ from: file, to: target, type_only });
    }
  }
  return { files, edges };
}

export function roomOf(file: string): string {
  return file.split('/')[0]!;
}

/** The import circles: strongly connected components of more than one file (Tarjan), each sorted. */
export function circles(graph: Graph): string[][] {
  const next = new Map<string, string[]>(graph.files.map((file) => [file, []]));
  for (const edge of graph.edges) next.get(edge.from)!.push(edge.to);
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const on_stack = new Set<string>();
  const found: string[][] = [];
  let counter = 0;
  const connect = (file: string): void => {
    index.set(file, counter);
    low.set(file, counter);
    counter += 1;
    stack.push(file);
    on_stack.add(file);
    for (const to of next.get(file)!) {
      if (!index.has(to)) {
        connect(to);
        low.set(file, Math.min(low.get(file)!, low.get(to)!));
      } else if (on_stack.has(to)) {
        low.set(file, Math.min(low.get(file)!, index.get(to)!));
      }
    }
    if (low.get(file) !== index.get(file)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      on_stack.delete(member);
      component.push(member);
    } while (member !== file);
    if (component.length > 1 || next.get(file)!.includes(file)) found.push(component.sort());
  };
  for (const file of graph.files) if (!index.has(file)) connect(file);
  return found.sort((a, b) => a[0]!.localeCompare(b[0]!));
}

/**
 * The composition root's edge of api/: the files that may reach into runtime/. api/docs.ts is a process entrypoint that
 * builds the app from configuration; api/context.ts names, as a type only, the configuration the composition root
 * (runtime/service.ts) hands every route.
 */
export const API_COMPOSITION_ROOT: Record<string, 'any' | 'type_only'> = { 'api/docs.ts': 'any', 'api/context.ts': 'type_only' };

/**
 * The one workflow module api/ may import as code: the Update and signal definitions (`defineUpdate`/`defineSignal`
 * objects and domain types only). The client passes the definition itself, as Temporal's message-passing sample does,
 * so a name or an argument type cannot drift between the API and the workflow that handles it.
 */
export const API_WORKFLOW_MESSAGES = 'workflows/messages.ts';

function composesApi(edge: Edge): boolean {
  const allowed = API_COMPOSITION_ROOT[edge.from];
  return allowed === 'any' || (allowed === 'type_only' && edge.type_only);
}

/** Why an edge points outward (ARCHITECTURE.md: "Dependencies point inward"), or null when it is allowed. */
export function outwardReason(edge: Edge): string | null {
  const from = roomOf(edge.from);
  const to = roomOf(edge.to);
  if (from === to) return null;
  if (from === 'domain') return 'domain imports nothing of ours but domain';
  if (from === 'store' && ['api', 'workflows', 'activities'].includes(to)) return `store must not import ${to}`;
  if (['store', 'integrations', 'compute'].includes(from) && to === 'runtime') return `${from} takes configuration as arguments, never imports runtime`;
  if (from === 'integrations' && ['workflows', 'activities', 'api'].includes(to)) return `integrations must not import ${to}`;
  if (from === 'compute' && ['workflows', 'activities', 'api'].includes(to)) return `compute must not import ${to}`;
  if (from === 'api' && to === 'runtime' && !composesApi(edge)) return 'api must not import runtime (only its composition root)';
  if (from === 'api' && to === 'workflows' && !edge.type_only && edge.to !== API_WORKFLOW_MESSAGES)
    return 'api imports a workflow only as a type (for a typed start), never its code';
  if (from === 'workflows' && to === 'activities' && !edge.type_only) return 'workflows import activities as types only (proxyActivities)';
  if (from === 'workflows' && !['domain', 'activities'].includes(to)) return `workflows import only domain and activity types, not ${to}`;
  if (from === 'activities' && ['api', 'runtime', 'workflows'].includes(to)) return `activities must not import ${to}`;
  return null;
}

export function outwardEdges(graph: Graph): Array<Edge & { reason: string }> {
  return graph.edges.flatMap((edge) => {
    const reason = outwardReason(edge);
    return reason ? [{ ...edge, reason }] : [];
  });
}

/** The folders of the service (its rooms and its migrations): the web app and the clients import none of them. */
export const SERVICE_FOLDERS: readonly string[] = [...SERVICE_ROOMS, 'migrations'];
/** Where the SDK's source lives: the one thing of ours the web app and the other clients import. */
export const SDK_SOURCE = 'clients/sdk/src/';
/**
 * The SDK's plain-language words (pure, importing nothing but each other): the one module of the clients the service
 * imports, so the app, the CLI and the service say a thing one way.
 */
export const SDK_WORDS = 'clients/sdk/src/words/';

/** A client file's own folder: `web/`, or `clients/<name>/`. */
export function homeOf(file: string): string {
  const parts = file.split('/');
  return parts[0] === 'clients' ? `clients/${parts[1]}/` : `${parts[0]}/`;
}

/** Every relative import of the files, resolved against root, whether or not its target is among the files. */
export function relativeImports(root: string, files: string[]): Edge[] {
  const edges: Edge[] = [];
  for (const file of files) {
    for (const { specifier, type_only } of importsOf(parse(root, file))) {
      if (!specifier.startsWith('.')) continue;
      const to = relative(root, resolve(root, dirname(file), specifier))
        .split(sep)
        .join('/');
      edges.push({ from: file, to, type_only });
    }
  }
  return edges;
}

/**
 * Why an import of the web app or a client is not allowed, or null: they speak HTTP only, so they import their own
 * files, the SDK and npm packages, never a service folder (a type-only import included: a shape comes from the SDK's
 * generated types).
 */
export function clientImportReason(edge: Edge): string | null {
  const home = homeOf(edge.from);
  if (edge.to.startsWith(home) || edge.to.startsWith(SDK_SOURCE)) return null;
  const room = roomOf(edge.to);
  if (SERVICE_FOLDERS.includes(room)) return `${home} speaks HTTP only: it imports the SDK (${SDK_SOURCE}), never ${room}/`;
  return `${home} imports only its own files, the SDK (${SDK_SOURCE}) and npm packages`;
}

/** Why an import of the service is not allowed, or null: nothing of the web app, the clients (but the SDK's words) or the tests. */
export function serviceImportReason(edge: Edge): string | null {
  if (!['web', 'clients', 'test'].includes(roomOf(edge.to)) || edge.to.startsWith(SDK_WORDS)) return null;
  return `the service imports nothing of web/, clients/ or test/ but the SDK's words (${SDK_WORDS})`;
}

/** The imports of the given files that break their rule (clientImportReason or serviceImportReason), with the reason. */
export function foreignImports(root: string, files: string[], reason: (edge: Edge) => string | null): Array<Edge & { reason: string }> {
  return relativeImports(root, files).flatMap((edge) => {
    const why = reason(edge);
    return why ? [{ ...edge, reason: why }] : [];
  });
}

function functionName(node: ts.Node): string {
  if ((ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node)) && node.name) return node.name.getText();
  const parent = node.parent;
  if (parent && ts.isVariableDeclaration(parent)) return parent.name.getText();
  if (parent && ts.isPropertyAssignment(parent)) return parent.name.getText();
  if (parent && ts.isCallExpression(parent)) return `${parent.expression.getText().slice(0, 40)}(…)`;
  return '(anonymous)';
}

/** Functions (declarations, methods, arrows, expressions) longer than `max` lines, named as a reader would find them. */
export function longFunctions(root: string, files: string[], max = FUNCTION_LINES_MAX): LongFunction[] {
  const found: LongFunction[] = [];
  for (const file of files) {
    const source = parse(root, file);
    const visit = (node: ts.Node): void => {
      if (ts.isFunctionLike(node) && 'body' in node && node.body) {
        const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
        const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
        const lines = end - start + 1;
        if (lines > max) found.push({ file, name: functionName(node), lines });
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return found;
}
