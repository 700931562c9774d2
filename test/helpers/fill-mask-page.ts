// A small fill-mask page and the local server behind it: transformers.js and onnxruntime-web's WASM files
// straight from node_modules, the exported model directory under /models/ (no network beyond localhost).
import { createServer, type Server } from "node:http";
import { createReadStream, existsSync, statSync } from "node:fs";
import { extname, join, normalize, sep } from "node:path";
import { fileURLToPath } from "node:url";

const NODE_MODULES = fileURLToPath(new URL("../../../node_modules/", import.meta.url));

/** URL prefixes → directories. The transformers.js build served is the one that bundles onnxruntime-web. */
function routes(modelsDir: string): Record<string, string> {
  return {
    "/transformers/": join(NODE_MODULES, "@huggingface", "transformers", "dist"),
    "/ort/": join(NODE_MODULES, "onnxruntime-web", "dist"),
    "/models/": modelsDir,
  };
}

const TYPES: Record<string, string> = {
  ".html": "text/html",
  ".js": "text/javascript",
  ".mjs": "text/javascript",
  ".wasm": "application/wasm",
  ".json": "application/json",
  ".onnx": "application/octet-stream",
};

/** The page: a text box, a button, and the answers as a list whose items carry token and score. */
export function fillMaskPage(model: string): string {
  return `<!doctype html>
<html><head><meta charset="utf-8"><title>Kiln fill-mask</title>
<style>body{font:16px sans-serif;margin:2em}input{width:30em;font-size:16px}li{margin:.3em 0}</style></head>
<body>
<h1>fill-mask with transformers.js</h1>
<p>Model: <code>${model}</code>, served from this machine; ONNX Runtime Web (WASM).</p>
<form id="form"><input id="text" placeholder="Text with [MASK]"> <button id="run">Fill</button></form>
<p id="status">loading…</p>
<ol id="answers"></ol>
<script type="module">
import { env, pipeline } from "/transformers/transformers.js";
env.allowRemoteModels = false;
env.allowLocalModels = true;
env.localModelPath = "/models/";
env.backends.onnx.wasm.wasmPaths = "/ort/";
env.backends.onnx.wasm.numThreads = 1;
const status = document.getElementById("status");
try {
  const fill = await pipeline("fill-mask", ${JSON.stringify(model)}, { device: "wasm" });
  status.textContent = "ready";
  document.getElementById("form").addEventListener("submit", async (e) => {
    e.preventDefault();
    status.textContent = "running";
    const answers = await fill(document.getElementById("text").value, { top_k: 5 });
    document.getElementById("answers").replaceChildren(...answers.map((a) => {
      const li = document.createElement("li");
      li.dataset.token = a.token;
      li.dataset.score = a.score;
      li.textContent = JSON.stringify(a.token_str) + " — " + a.score.toFixed(5) + " — " + a.sequence;
      return li;
    }));
    status.textContent = "done";
  });
} catch (err) {
  status.textContent = "error: " + err.message;
}
</script>
</body></html>`;
}

/** Serves the page at / and the files it needs; resolves with the server and its base URL. */
export async function serveFillMaskPage(modelsDir: string, model: string): Promise<{ server: Server; url: string }> {
  const table = routes(modelsDir);
  const server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? "/", "http://localhost").pathname);
    if (path === "/") {
      res.writeHead(200, { "content-type": "text/html" }).end(fillMaskPage(model));
      return;
    }
    const prefix = Object.keys(table).find((p) => path.startsWith(p));
    const root = prefix ? table[prefix]! : undefined;
    const file = root ? normalize(join(root, path.slice(prefix!.length))) : undefined;
    if (!file || !file.startsWith(root! + sep) || !existsSync(file) || !statSync(file).isFile()) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { "content-type": TYPES[extname(file)] ?? "application/octet-stream" });
    createReadStream(file).pipe(res);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (!address || typeof address === "string") throw new Error("the page server has no port");
  return { server, url: `http://127.0.0.1:${address.port}/` };
}
