module @div attributes {mhlo.num_replicas = 1 : i32, mhlo.num_partitions = 1 : i32} {
  func.func public @main(%arg0: tensor<2x3xf32>, %arg1: tensor<2x3xf32>, %arg2: tensor<2x3xi32>, %arg3: tensor<2x3xi32>, %arg4: tensor<2x3xui32>, %arg5: tensor<2x3xui32>) -> (tensor<2x3xf32>, tensor<2x3xi32>, tensor<2x3xui32>) {
    %0 = "stablehlo.divide"(%arg0, %arg1) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    %1 = "stablehlo.divide"(%arg2, %arg3) : (tensor<2x3xi32>, tensor<2x3xi32>) -> tensor<2x3xi32>
    %2 = "stablehlo.divide"(%arg4, %arg5) : (tensor<2x3xui32>, tensor<2x3xui32>) -> tensor<2x3xui32>
    func.return %0, %1, %2 : tensor<2x3xf32>, tensor<2x3xi32>, tensor<2x3xui32>
  }
}
