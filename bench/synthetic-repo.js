// Builds the deterministic benchmark repository (see src/demo/synthetic.ts).
// Usage: node bench/synthetic-repo.js DIR [commits] [merges] [files]   (after `npm run build`)
import { buildSyntheticRepo } from "../dist/demo/synthetic.js";

export { buildSyntheticRepo };

if (process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href) {
  const [dir, commits, merges, files] = process.argv.slice(2);
  if (!dir) {
    console.error("usage: node bench/synthetic-repo.js DIR [commits] [merges] [files]");
    process.exit(2);
  }
  const made = await buildSyntheticRepo(dir, {
    commits: commits ? Number(commits) : undefined,
    merges: merges ? Number(merges) : undefined,
    files: files ? Number(files) : undefined,
  });
  console.log(`built ${dir}: ${made.commits} commits, ${made.merges} merges`);
}
