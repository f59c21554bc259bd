import BenchSupport
for g in TestImages.sizes {
  for op in Catalog.operations(at: g) {
    for c in op.contenders {
      let job = try c.make()
      try job()
      print(op.name, g, c.library, c.detail, "ok")
    }
  }
}
