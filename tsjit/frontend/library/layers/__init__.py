"""The `torch.nn` layers, one module per family as in PyTorch's `torch/nn/modules/`.

`__init__` is plain Python that builds parameters and buffers as PyTorch does (the shim
runs it; a real PyTorch module brings its own state); every method scripted code calls
(`forward`, and the helpers it uses) is TorchScript source that tsjit compiles, following
PyTorch's. A layer's class name in graphs is `torch.nn.modules.<family>.<Name>`, from the
module the class is defined in. Inference fast paths that only re-arrange the same
arithmetic (the fused attention of `MultiheadAttention`, `TransformerEncoderLayer`) are
left out: the general path computes the same values.
"""
