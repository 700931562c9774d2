module @min attributes {mhlo.num_replicas = 1 : i32, mhlo.num_partitions = 1 : i32} {
  func.func public @main(%arg0: tensor<2x3xf32>, %arg1: tensor<2x3xf32>, %arg2: tensor<2x3xi32>, %arg3: tensor<2x3xi32>, %arg4: tensor<2x3xui32>, %arg5: tensor<2x3xui32>) -> (tensor<2x3xf32>, tensor<2x3xi32>, tensor<2x3xui32>) {
    %0 = "stablehlo.minimum"(%arg0, %arg1) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    %1 = "stablehlo.compare"(%arg0, %arg0) {comparison_direction = #stablehlo<comparison_direction NE>, compare_type = #stablehlo<comparison_type FLOAT>} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
    %2 = "stablehlo.compare"(%arg1, %arg1) {comparison_direction = #stablehlo<comparison_direction NE>, compare_type = #stablehlo<comparison_type FLOAT>} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
    %3 = "stablehlo.select"(%2, %arg1, %0) : (tensor<2x3xi1>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    %4 = "stablehlo.select"(%1, %arg0, %3) : (tensor<2x3xi1>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    %5 = "stablehlo.minimum"(%arg2, %arg3) : (tensor<2x3xi32>, tensor<2x3xi32>) -> tensor<2x3xi32>
    %6 = "stablehlo.minimum"(%arg4, %arg5) : (tensor<2x3xui32>, tensor<2x3xui32>) -> tensor<2x3xui32>
    func.return %4, %5, %6 : tensor<2x3xf32>, tensor<2x3xi32>, tensor<2x3xui32>
  }
}
