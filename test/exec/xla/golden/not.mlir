module @not attributes {mhlo.num_replicas = 1 : i32, mhlo.num_partitions = 1 : i32} {
  func.func public @main(%arg0: tensor<4xi1>, %arg1: tensor<4xui32>, %arg2: tensor<4xi64>) -> (tensor<4xi1>, tensor<4xui32>, tensor<4xi64>) {
    %0 = "stablehlo.not"(%arg0) : (tensor<4xi1>) -> tensor<4xi1>
    %1 = "stablehlo.not"(%arg1) : (tensor<4xui32>) -> tensor<4xui32>
    %2 = "stablehlo.convert"(%arg2) : (tensor<4xi64>) -> tensor<4xi32>
    %3 = "stablehlo.not"(%2) : (tensor<4xi32>) -> tensor<4xi32>
    %4 = "stablehlo.convert"(%3) : (tensor<4xi32>) -> tensor<4xi64>
    func.return %0, %1, %4 : tensor<4xi1>, tensor<4xui32>, tensor<4xi64>
  }
}
