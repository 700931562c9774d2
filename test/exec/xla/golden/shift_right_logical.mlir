module @shift_right_logical attributes {mhlo.num_replicas = 1 : i32, mhlo.num_partitions = 1 : i32} {
  func.func public @main(%arg0: tensor<4xui32>, %arg1: tensor<4xui32>, %arg2: tensor<4xi32>, %arg3: tensor<4xi32>, %arg4: tensor<4xi64>, %arg5: tensor<4xi64>) -> (tensor<4xui32>, tensor<4xi32>, tensor<4xi64>) {
    %0 = "stablehlo.shift_right_logical"(%arg0, %arg1) : (tensor<4xui32>, tensor<4xui32>) -> tensor<4xui32>
    %1 = "stablehlo.shift_right_logical"(%arg2, %arg3) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
    %2 = "stablehlo.constant"() {value = dense<0> : tensor<4xi64>} : () -> tensor<4xi64>
    %3 = "stablehlo.compare"(%arg5, %2) {comparison_direction = #stablehlo<comparison_direction LT>, compare_type = #stablehlo<comparison_type SIGNED>} : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi1>
    %4 = "stablehlo.constant"() {value = dense<32> : tensor<4xi64>} : () -> tensor<4xi64>
    %5 = "stablehlo.compare"(%arg5, %4) {comparison_direction = #stablehlo<comparison_direction GE>, compare_type = #stablehlo<comparison_type SIGNED>} : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi1>
    %6 = "stablehlo.or"(%3, %5) : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
    %7 = "stablehlo.select"(%6, %4, %arg5) : (tensor<4xi1>, tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
    %8 = "stablehlo.convert"(%arg4) : (tensor<4xi64>) -> tensor<4xi32>
    %9 = "stablehlo.convert"(%7) : (tensor<4xi64>) -> tensor<4xi32>
    %10 = "stablehlo.shift_right_logical"(%8, %9) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
    %11 = "stablehlo.convert"(%10) : (tensor<4xi32>) -> tensor<4xi64>
    func.return %0, %1, %11 : tensor<4xui32>, tensor<4xi32>, tensor<4xi64>
  }
}
