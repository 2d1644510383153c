"""decode_llm.py MODE [REQUESTS] [OUT]: LLM text generation as a serving engineer writes it
first: a GPT-like decoder (8 layers, d=1024, bf16) with a key/value cache, each request a
128-token prompt (prefill) then greedy decoding of 96 tokens at batch 1, stopping at an
end-of-text token that the loop tests with .item() after every token. No NVTX ranges: what
gpuscope analyze finds must come from the trace alone.
MODE: eager (every decode step launches its ~100 kernels from Python), graph (the decode step
captured once into a CUDA graph on static buffers and replayed: one launch a token), hf (the same
sizes as a transformers LlamaForCausalLM of random weights, model.generate() greedy, as most
users call it); torch (eager), torch-graph or torch-hf: that mode with the requests after the
first under torch.profiler (CPU+CUDA), the Chrome trace written to OUT when given.
Prints tokens per second over the requests after the first (bench/decode.sh compares them)."""
import sys
import time

import torch

V, D, L, H, P, N = 32000, 1024, 8, 16, 128, 96
MAXT = P + N


class Layer(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.n1, self.n2 = torch.nn.RMSNorm(D), torch.nn.RMSNorm(D)
        self.qkv, self.o = torch.nn.Linear(D, 3 * D, bias=False), torch.nn.Linear(D, D, bias=False)
        self.up = torch.nn.Linear(D, 8 * D, bias=False)
        self.down = torch.nn.Linear(4 * D, D, bias=False)

    def forward(self, x, kc, vc, pos, n):
        # x: (1, n, D); kc, vc: (1, H, MAXT, D/H); pos: tensor of the first position
        q, k, v = self.qkv(self.n1(x)).view(1, n, 3, H, D // H).transpose(1, 3).unbind(2)
        idx = pos + torch.arange(n, device=x.device)
        kc.index_copy_(2, idx, k)
        vc.index_copy_(2, idx, v)
        mask = torch.arange(MAXT, device=x.device)[None, :] <= idx[:, None]
        y = torch.nn.functional.scaled_dot_product_attention(q, kc, vc, attn_mask=mask)
        x = x + self.o(y.transpose(1, 2).reshape(1, n, D))
        g, u = self.up(self.n2(x)).chunk(2, dim=-1)
        return x + self.down(torch.nn.functional.silu(g) * u)


class GPT(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = torch.nn.Embedding(V, D)
        self.layers = torch.nn.ModuleList(Layer() for _ in range(L))
        self.norm = torch.nn.RMSNorm(D)
        self.head = torch.nn.Linear(D, V, bias=False)

    def forward(self, tok, cache, pos):
        n = tok.shape[1]
        x = self.emb(tok)
        for layer, (kc, vc) in zip(self.layers, cache):
            x = layer(x, kc, vc, pos, n)
        return self.head(self.norm(x[:, -1:]))


def main():
    mode = sys.argv[1]
    reqs = int(sys.argv[2]) if len(sys.argv) > 2 else 6
    out = sys.argv[3] if len(sys.argv) > 3 else None
    torch.manual_seed(0)
    base = {"torch": "eager", "torch-graph": "graph", "torch-hf": "hf"}.get(mode, mode)
    if base == "hf":
        return hf(reqs, mode, out)
    model = GPT().cuda().to(torch.bfloat16).eval()
    cache = [(torch.zeros(1, H, MAXT, D // H, device="cuda", dtype=torch.bfloat16),
              torch.zeros(1, H, MAXT, D // H, device="cuda", dtype=torch.bfloat16)) for _ in range(L)]
    eos = V - 1
    tok1 = torch.zeros(1, 1, dtype=torch.long, device="cuda")
    pos1 = torch.zeros((), dtype=torch.long, device="cuda")
    graph = None
    if base == "graph":
        s = torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        with torch.no_grad(), torch.cuda.stream(s):
            for _ in range(2):
                out1 = model(tok1, cache, pos1)
        torch.cuda.current_stream().wait_stream(s)
        graph = torch.cuda.CUDAGraph()
        with torch.no_grad(), torch.cuda.graph(graph):
            out1 = model(tok1, cache, pos1)

    def request(r):
        prompt = torch.randint(0, V - 1, (1, P), device="cuda", generator=None)
        with torch.no_grad():
            logits = model(prompt, cache, torch.zeros((), dtype=torch.long, device="cuda"))
            nxt = logits[:, -1].argmax(-1, keepdim=True)
            made = 0
            for i in range(N):
                if nxt.item() == eos:
                    break
                made += 1
                if graph is not None:
                    tok1.copy_(nxt)
                    pos1.fill_(P + i)
                    graph.replay()
                    logits = out1
                else:
                    logits = model(nxt, cache, torch.tensor(P + i, device="cuda"))
                nxt = logits[:, -1].argmax(-1, keepdim=True)
        return made

    request(0)
    timed(lambda: sum(request(r) for r in range(1, reqs)), mode, out)


def timed(run, mode, out):
    """run() (the requests after the first) and its tokens per second; under torch.profiler
    (CPU+CUDA) when mode asks for it, the trace written to out after the timing"""

    def go():
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        made = run()
        torch.cuda.synchronize()
        return made, time.perf_counter() - t0

    if mode.startswith("torch"):
        acts = [torch.profiler.ProfilerActivity.CPU, torch.profiler.ProfilerActivity.CUDA]
        with torch.profiler.profile(activities=acts) as prof:
            made, dt = go()
        if out:
            prof.export_chrome_trace(out)
    else:
        made, dt = go()
    print("%s: %d tokens in %.3f s, %.1f tokens/s" % (mode, made, dt, made / dt))


def hf(reqs, mode, out):
    import transformers
    cfg = transformers.LlamaConfig(vocab_size=V, hidden_size=D, intermediate_size=4 * D,
                                   num_hidden_layers=L, num_attention_heads=H,
                                   num_key_value_heads=H, max_position_embeddings=MAXT)
    model = transformers.LlamaForCausalLM(cfg).cuda().to(torch.bfloat16).eval()

    def request():
        prompt = torch.randint(0, V - 1, (1, P), device="cuda")
        out = model.generate(prompt, attention_mask=torch.ones_like(prompt), do_sample=False,
                             min_new_tokens=N, max_new_tokens=N, pad_token_id=0)
        return out.shape[1] - P

    request()
    timed(lambda: sum(request() for _ in range(1, reqs)), mode, out)


if __name__ == "__main__":
    main()
