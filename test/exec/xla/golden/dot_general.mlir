module @dot_general attributes {mhlo.num_replicas = 1 : i32, mhlo.num_partitions = 1 : i32} {
  func.func public @main(%arg0: tensor<4x3xf32>, %arg1: tensor<3x5xf32>, %arg2: tensor<2x4x3xbf16>, %arg3: tensor<2x5x3xbf16>, %arg4: tensor<2xf32>, %arg5: tensor<3xf32>) -> (tensor<4x5xf32>, tensor<2x4x5xf32>, tensor<2x3xf32>) {
    %0 = "stablehlo.dot_general"(%arg0, %arg1) {dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>, precision_config = [#stablehlo<precision HIGHEST>, #stablehlo<precision HIGHEST>]} : (tensor<4x3xf32>, tensor<3x5xf32>) -> tensor<4x5xf32>
    %1 = "stablehlo.dot_general"(%arg2, %arg3) {dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [2]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x4x3xbf16>, tensor<2x5x3xbf16>) -> tensor<2x4x5xf32>
    %2 = "stablehlo.dot_general"(%arg4, %arg5) {dot_dimension_numbers = #stablehlo.dot<>, precision_config = [#stablehlo<precision HIGHEST>, #stablehlo<precision HIGHEST>]} : (tensor<2xf32>, tensor<3xf32>) -> tensor<2x3xf32>
    func.return %0, %1, %2 : tensor<4x5xf32>, tensor<2x4x5xf32>, tensor<2x3xf32>
  }
}
