module @iota attributes {mhlo.num_replicas = 1 : i32, mhlo.num_partitions = 1 : i32} {
  func.func public @main() -> (tensor<2x3xi32>, tensor<4xui32>, tensor<3x2xf32>) {
    %0 = "stablehlo.iota"() {iota_dimension = 1 : i64} : () -> tensor<2x3xi32>
    %1 = "stablehlo.iota"() {iota_dimension = 0 : i64} : () -> tensor<4xui32>
    %2 = "stablehlo.iota"() {iota_dimension = 0 : i64} : () -> tensor<3x2xf32>
    func.return %0, %1, %2 : tensor<2x3xi32>, tensor<4xui32>, tensor<3x2xf32>
  }
}
