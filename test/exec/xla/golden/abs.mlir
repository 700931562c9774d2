module @abs attributes {mhlo.num_replicas = 1 : i32, mhlo.num_partitions = 1 : i32} {
  func.func public @main(%arg0: tensor<4xf32>, %arg1: tensor<4xi32>, %arg2: tensor<4xui32>) -> (tensor<4xf32>, tensor<4xi32>, tensor<4xui32>) {
    %0 = "stablehlo.abs"(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
    %1 = "stablehlo.abs"(%arg1) : (tensor<4xi32>) -> tensor<4xi32>
    func.return %0, %1, %arg2 : tensor<4xf32>, tensor<4xi32>, tensor<4xui32>
  }
}
