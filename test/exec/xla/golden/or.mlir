module @or attributes {mhlo.num_replicas = 1 : i32, mhlo.num_partitions = 1 : i32} {
  func.func public @main(%arg0: tensor<4xui32>, %arg1: tensor<4xui32>, %arg2: tensor<4xi1>, %arg3: tensor<4xi1>) -> (tensor<4xui32>, tensor<4xi1>) {
    %0 = "stablehlo.or"(%arg0, %arg1) : (tensor<4xui32>, tensor<4xui32>) -> tensor<4xui32>
    %1 = "stablehlo.or"(%arg2, %arg3) : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
    func.return %0, %1 : tensor<4xui32>, tensor<4xi1>
  }
}
