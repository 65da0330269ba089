// tools/bench_gguf_peer.mjs PREFIX FILE.gguf - the GGUF peer of
// tools/bench: what a JavaScript user runs today to read a local GGUF's
// metadata, @huggingface/gguf's gguf(path, {allowLocalFile: true}).
// Prints the tensor count and the vocabulary size so the work cannot be
// skipped; PREFIX is the folder npm installed the package into (--prefix).
import { createRequire } from "node:module";
import { resolve } from "node:path";

const [prefix, file] = process.argv.slice(2);
if (!prefix || !file) {
  console.error("usage: bench_gguf_peer.mjs PREFIX FILE.gguf");
  process.exit(2);
}
const { gguf } = createRequire(resolve(prefix, "peer.cjs"))("@huggingface/gguf");
const { metadata, tensorInfos } = await gguf(file, { allowLocalFile: true });
const tokens = metadata["tokenizer.ggml.tokens"];
console.log(`tensors ${tensorInfos.length} tokens ${tokens ? tokens.length : 0} keys ${Object.keys(metadata).length}`);
