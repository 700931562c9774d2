module @cumsum attributes {mhlo.num_replicas = 1 : i32, mhlo.num_partitions = 1 : i32} {
  func.func public @main(%arg0: tensor<3x5xf32>, %arg1: tensor<4x2xi32>, %arg2: tensor<1xbf16>) -> (tensor<3x5xf32>, tensor<4x2xi32>, tensor<1xbf16>) {
    %0 = "stablehlo.constant"() {value = dense<0.0> : tensor<f32>} : () -> tensor<f32>
    %1 = "stablehlo.pad"(%arg0, %0) {edge_padding_low = array<i64: 0, 1>, edge_padding_high = array<i64: 0, -1>, interior_padding = array<i64: 0, 0>} : (tensor<3x5xf32>, tensor<f32>) -> tensor<3x5xf32>
    %2 = "stablehlo.add"(%arg0, %1) : (tensor<3x5xf32>, tensor<3x5xf32>) -> tensor<3x5xf32>
    %3 = "stablehlo.pad"(%2, %0) {edge_padding_low = array<i64: 0, 2>, edge_padding_high = array<i64: 0, -2>, interior_padding = array<i64: 0, 0>} : (tensor<3x5xf32>, tensor<f32>) -> tensor<3x5xf32>
    %4 = "stablehlo.add"(%2, %3) : (tensor<3x5xf32>, tensor<3x5xf32>) -> tensor<3x5xf32>
    %5 = "stablehlo.pad"(%4, %0) {edge_padding_low = array<i64: 0, 4>, edge_padding_high = array<i64: 0, -4>, interior_padding = array<i64: 0, 0>} : (tensor<3x5xf32>, tensor<f32>) -> tensor<3x5xf32>
    %6 = "stablehlo.add"(%4, %5) : (tensor<3x5xf32>, tensor<3x5xf32>) -> tensor<3x5xf32>
    %7 = "stablehlo.constant"() {value = dense<0> : tensor<i32>} : () -> tensor<i32>
    %8 = "stablehlo.pad"(%arg1, %7) {edge_padding_low = array<i64: -1, 0>, edge_padding_high = array<i64: 1, 0>, interior_padding = array<i64: 0, 0>} : (tensor<4x2xi32>, tensor<i32>) -> tensor<4x2xi32>
    %9 = "stablehlo.add"(%arg1, %8) : (tensor<4x2xi32>, tensor<4x2xi32>) -> tensor<4x2xi32>
    %10 = "stablehlo.pad"(%9, %7) {edge_padding_low = array<i64: -2, 0>, edge_padding_high = array<i64: 2, 0>, interior_padding = array<i64: 0, 0>} : (tensor<4x2xi32>, tensor<i32>) -> tensor<4x2xi32>
    %11 = "stablehlo.add"(%9, %10) : (tensor<4x2xi32>, tensor<4x2xi32>) -> tensor<4x2xi32>
    %12 = "stablehlo.convert"(%arg2) : (tensor<1xbf16>) -> tensor<1xf32>
    %13 = "stablehlo.convert"(%12) : (tensor<1xf32>) -> tensor<1xbf16>
    func.return %6, %11, %13 : tensor<3x5xf32>, tensor<4x2xi32>, tensor<1xbf16>
  }
}
