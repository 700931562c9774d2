module @is_finite attributes {mhlo.num_replicas = 1 : i32, mhlo.num_partitions = 1 : i32} {
  func.func public @main(%arg0: tensor<2x3xf32>) -> (tensor<2x3xi1>) {
    %0 = "stablehlo.is_finite"(%arg0) : (tensor<2x3xf32>) -> tensor<2x3xi1>
    func.return %0 : tensor<2x3xi1>
  }
}
