def forward(x: Tensor,
    hx: Tensor,
    cx: Tensor,
    w_ih: Tensor,
    w_hh: Tensor,
    b_ih: Tensor,
    b_hh: Tensor) -> Tuple[Tensor, Tensor]:
  _0 = torch.add(torch.mm(x, torch.t(w_ih)), torch.mm(hx, torch.t(w_hh)))
  gates = torch.add(torch.add(_0, b_ih), b_hh)
  ingate, forgetgate, cellgate, outgate, = torch.chunk(gates, 4, 1)
  ingate0 = torch.sigmoid(ingate)
  forgetgate0 = torch.sigmoid(forgetgate)
  cellgate0 = torch.tanh(cellgate)
  outgate0 = torch.sigmoid(outgate)
  cy = torch.add(torch.mul(forgetgate0, cx), torch.mul(ingate0, cellgate0))
  hy = torch.mul(outgate0, torch.tanh(cy))
  return (hy, cy)
