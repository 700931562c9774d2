module @pow attributes {mhlo.num_replicas = 1 : i32, mhlo.num_partitions = 1 : i32} {
  func.func public @main(%arg0: tensor<2x3xf32>, %arg1: tensor<2x3xf32>, %arg2: tensor<2x3xbf16>, %arg3: tensor<2x3xbf16>) -> (tensor<2x3xf32>, tensor<2x3xbf16>) {
    %0 = "stablehlo.power"(%arg0, %arg1) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    %1 = "stablehlo.power"(%arg2, %arg3) : (tensor<2x3xbf16>, tensor<2x3xbf16>) -> tensor<2x3xbf16>
    func.return %0, %1 : tensor<2x3xf32>, tensor<2x3xbf16>
  }
}
