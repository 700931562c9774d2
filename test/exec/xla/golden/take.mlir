module @take attributes {mhlo.num_replicas = 1 : i32, mhlo.num_partitions = 1 : i32} {
  func.func public @main(%arg0: tensor<3x5x2xf32>, %arg1: tensor<4xi32>, %arg2: tensor<6x4xbf16>, %arg3: tensor<2x3xi32>, %arg4: tensor<5xf32>, %arg5: tensor<ui32>) -> (tensor<3x4x2xf32>, tensor<2x3x4xbf16>, tensor<f32>) {
    %0 = "stablehlo.gather"(%arg0, %arg1) {dimension_numbers = #stablehlo.gather<offset_dims = [0, 2], collapsed_slice_dims = [1], start_index_map = [1], index_vector_dim = 1>, slice_sizes = array<i64: 3, 1, 2>, indices_are_sorted = false} : (tensor<3x5x2xf32>, tensor<4xi32>) -> tensor<3x4x2xf32>
    %1 = "stablehlo.gather"(%arg2, %arg3) {dimension_numbers = #stablehlo.gather<offset_dims = [2], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 2>, slice_sizes = array<i64: 1, 4>, indices_are_sorted = false} : (tensor<6x4xbf16>, tensor<2x3xi32>) -> tensor<2x3x4xbf16>
    %2 = "stablehlo.gather"(%arg4, %arg5) {dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 0>, slice_sizes = array<i64: 1>, indices_are_sorted = false} : (tensor<5xf32>, tensor<ui32>) -> tensor<f32>
    func.return %0, %1, %2 : tensor<3x4x2xf32>, tensor<2x3x4xbf16>, tensor<f32>
  }
}
