"""A tiny non-classifier model for export_torch_test: `--model tiny_model:build`.

Token embedding, one self-attention (bmm), a transposed convolution and a
tied output projection, so the export covers embedding, bmm, addmm,
convolution (transposed) and a weight read by two ops; its output is
[batch, tokens, vocab] (3-D), so the exporter's automatic loss is "sum".
"""
import torch


class Tiny(torch.nn.Module):
    def __init__(self, vocab=50, dim=16):
        super().__init__()
        self.embed = torch.nn.Embedding(vocab, dim)
        self.qkv = torch.nn.Linear(dim, 3 * dim)
        self.up = torch.nn.ConvTranspose1d(dim, dim, kernel_size=3, padding=1)
        self.norm = torch.nn.LayerNorm(dim)

    def forward(self, tokens):
        x = self.embed(tokens)                      # [B, T, D]
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        att = torch.softmax(torch.bmm(q, k.transpose(1, 2)) / 4.0, dim=-1)
        x = x + torch.bmm(att, v)
        x = x + self.up(x.transpose(1, 2)).transpose(1, 2)
        x = self.norm(x)
        return x @ self.embed.weight.t()            # tied projection: [B, T, vocab]


def build():
    torch.manual_seed(0)
    return Tiny(), torch.randint(0, 50, (2, 8))
