module @and attributes {mhlo.num_replicas = 1 : i32, mhlo.num_partitions = 1 : i32} {
  func.func public @main(%arg0: tensor<4xui32>, %arg1: tensor<4xui32>, %arg2: tensor<4xi1>, %arg3: tensor<4xi1>, %arg4: tensor<4xi64>, %arg5: tensor<4xi64>) -> (tensor<4xui32>, tensor<4xi1>, tensor<4xi64>) {
    %0 = "stablehlo.and"(%arg0, %arg1) : (tensor<4xui32>, tensor<4xui32>) -> tensor<4xui32>
    %1 = "stablehlo.and"(%arg2, %arg3) : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
    %2 = "stablehlo.convert"(%arg4) : (tensor<4xi64>) -> tensor<4xi32>
    %3 = "stablehlo.convert"(%arg5) : (tensor<4xi64>) -> tensor<4xi32>
    %4 = "stablehlo.and"(%2, %3) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
    %5 = "stablehlo.convert"(%4) : (tensor<4xi32>) -> tensor<4xi64>
    func.return %0, %1, %5 : tensor<4xui32>, tensor<4xi1>, tensor<4xi64>
  }
}
