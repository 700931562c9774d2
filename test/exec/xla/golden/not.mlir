module @not attributes {mhlo.num_replicas = 1 : i32, mhlo.num_partitions = 1 : i32} {
  func.func public @main(%arg0: tensor<4xi1>, %arg1: tensor<4xui32>) -> (tensor<4xi1>, tensor<4xui32>) {
    %0 = "stablehlo.not"(%arg0) : (tensor<4xi1>) -> tensor<4xi1>
    %1 = "stablehlo.not"(%arg1) : (tensor<4xui32>) -> tensor<4xui32>
    func.return %0, %1 : tensor<4xi1>, tensor<4xui32>
  }
}
