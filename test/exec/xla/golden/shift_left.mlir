module @shift_left attributes {mhlo.num_replicas = 1 : i32, mhlo.num_partitions = 1 : i32} {
  func.func public @main(%arg0: tensor<4xui32>, %arg1: tensor<4xui32>, %arg2: tensor<4xi32>, %arg3: tensor<4xi32>) -> (tensor<4xui32>, tensor<4xi32>) {
    %0 = "stablehlo.shift_left"(%arg0, %arg1) : (tensor<4xui32>, tensor<4xui32>) -> tensor<4xui32>
    %1 = "stablehlo.shift_left"(%arg2, %arg3) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
    func.return %0, %1 : tensor<4xui32>, tensor<4xi32>
  }
}
