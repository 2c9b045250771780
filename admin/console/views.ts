// The console's templates (templates/*.njk): one nunjucks environment, every template compiled
// once when the console is created, so a syntax error stops start-up instead of a page view.
import { readdirSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import nunjucks from 'nunjucks';
import { packagePath } from '../../runtime/package-root.ts';

export interface Views {
  /** The HTML of one page; `context` is escaped wherever a template prints it. */
  render(template: string, context: Record<string, unknown>): string;
}

/** Every .njk file under `root`, as nunjucks names them ('/'-separated, relative). */
function templateNames(root: string, dir = root): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return templateNames(root, path);
    return entry.name.endsWith('.njk') ? [relative(root, path).split(sep).join('/')] : [];
  });
}

export function createViews(root: string = packagePath('templates')): Views {
  // autoescape: data is text everywhere, and no template marks data `| safe` but the usage chart,
  // markup that usage-chart.ts writes with every text in it escaped there. Every template is
  // compiled here, once: a template that does not compile stops the start, not a page view.
  const env = new nunjucks.Environment(new nunjucks.FileSystemLoader(root), { autoescape: true, throwOnUndefined: false, trimBlocks: true, lstripBlocks: true });
  const templates = new Map<string, nunjucks.Template>();
  for (const name of templateNames(root)) templates.set(name, env.getTemplate(name, true));
  return {
    render(template, context) {
      const compiled = templates.get(template);
      if (!compiled) throw new Error(`the console has no template ${template} in ${root}`);
      return compiled.render(context);
    },
  };
}
