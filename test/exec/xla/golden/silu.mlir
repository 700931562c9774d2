module @silu attributes {mhlo.num_replicas = 1 : i32, mhlo.num_partitions = 1 : i32} {
  func.func public @main(%arg0: tensor<2x3xf32>) -> (tensor<2x3xf32>) {
    %0 = "stablehlo.logistic"(%arg0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %1 = "stablehlo.multiply"(%arg0, %0) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    func.return %1 : tensor<2x3xf32>
  }
}
