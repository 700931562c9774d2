module @pad attributes {mhlo.num_replicas = 1 : i32, mhlo.num_partitions = 1 : i32} {
  func.func public @main(%arg0: tensor<2x3xf32>, %arg1: tensor<3xi32>) -> (tensor<3x5xf32>, tensor<6xi32>) {
    %0 = "stablehlo.constant"() {value = dense<0.5> : tensor<f32>} : () -> tensor<f32>
    %1 = "stablehlo.pad"(%arg0, %0) {edge_padding_low = array<i64: 1, 0>, edge_padding_high = array<i64: 0, 2>, interior_padding = array<i64: 0, 0>} : (tensor<2x3xf32>, tensor<f32>) -> tensor<3x5xf32>
    %2 = "stablehlo.constant"() {value = dense<-1> : tensor<i32>} : () -> tensor<i32>
    %3 = "stablehlo.pad"(%arg1, %2) {edge_padding_low = array<i64: 2>, edge_padding_high = array<i64: 1>, interior_padding = array<i64: 0>} : (tensor<3xi32>, tensor<i32>) -> tensor<6xi32>
    func.return %1, %3 : tensor<3x5xf32>, tensor<6xi32>
  }
}
