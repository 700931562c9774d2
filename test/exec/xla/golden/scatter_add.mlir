module @scatter_add attributes {mhlo.num_replicas = 1 : i32, mhlo.num_partitions = 1 : i32} {
  func.func public @main(%arg0: tensor<5x3xf32>, %arg1: tensor<4xi32>, %arg2: tensor<4x3xf32>, %arg3: tensor<2x6xbf16>, %arg4: tensor<3xui32>, %arg5: tensor<2x3xbf16>) -> (tensor<5x3xf32>, tensor<2x6xbf16>) {
    %0 = "stablehlo.constant"() {value = dense<0> : tensor<4xi32>} : () -> tensor<4xi32>
    %1 = "stablehlo.maximum"(%arg1, %0) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
    %2 = "stablehlo.constant"() {value = dense<4> : tensor<4xi32>} : () -> tensor<4xi32>
    %3 = "stablehlo.minimum"(%1, %2) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
    %4 = "stablehlo.scatter"(%arg0, %3, %arg2) ({
      ^bb0(%5: tensor<f32>, %6: tensor<f32>):
        %7 = "stablehlo.add"(%5, %6) : (tensor<f32>, tensor<f32>) -> tensor<f32>
        "stablehlo.return"(%7) : (tensor<f32>) -> ()
    }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, indices_are_sorted = false, unique_indices = false} : (tensor<5x3xf32>, tensor<4xi32>, tensor<4x3xf32>) -> tensor<5x3xf32>
    %8 = "stablehlo.convert"(%arg3) : (tensor<2x6xbf16>) -> tensor<2x6xf32>
    %9 = "stablehlo.constant"() {value = dense<5> : tensor<3xui32>} : () -> tensor<3xui32>
    %10 = "stablehlo.minimum"(%arg4, %9) : (tensor<3xui32>, tensor<3xui32>) -> tensor<3xui32>
    %11 = "stablehlo.convert"(%arg5) : (tensor<2x3xbf16>) -> tensor<2x3xf32>
    %12 = "stablehlo.scatter"(%8, %10, %11) ({
      ^bb0(%13: tensor<f32>, %14: tensor<f32>):
        %15 = "stablehlo.add"(%13, %14) : (tensor<f32>, tensor<f32>) -> tensor<f32>
        "stablehlo.return"(%15) : (tensor<f32>) -> ()
    }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [0], inserted_window_dims = [1], scatter_dims_to_operand_dims = [1], index_vector_dim = 1>, indices_are_sorted = false, unique_indices = false} : (tensor<2x6xf32>, tensor<3xui32>, tensor<2x3xf32>) -> tensor<2x6xf32>
    %16 = "stablehlo.convert"(%12) : (tensor<2x6xf32>) -> tensor<2x6xbf16>
    func.return %4, %16 : tensor<5x3xf32>, tensor<2x6xbf16>
  }
}
