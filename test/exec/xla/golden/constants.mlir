module @constants attributes {mhlo.num_replicas = 1 : i32, mhlo.num_partitions = 1 : i32} {
  func.func public @main() -> (tensor<2x2xf32>, tensor<3xf32>, tensor<f32>, tensor<2xf64>, tensor<2xbf16>, tensor<f16>, tensor<3xi32>, tensor<2xui32>, tensor<2xi64>, tensor<2x2xi1>, tensor<3xi1>, tensor<0x3xf32>) {
    %0 = "stablehlo.constant"() {value = dense<"0x0000803F000020C077CC2B32FFFF7F7F"> : tensor<2x2xf32>} : () -> tensor<2x2xf32>
    %1 = "stablehlo.constant"() {value = dense<0x7FC00000> : tensor<3xf32>} : () -> tensor<3xf32>
    %2 = "stablehlo.constant"() {value = dense<0xFF800000> : tensor<f32>} : () -> tensor<f32>
    %3 = "stablehlo.constant"() {value = dense<"0x9A9999999999B93F0000000000000080"> : tensor<2xf64>} : () -> tensor<2xf64>
    %4 = "stablehlo.constant"() {value = dense<"0x803F40C0"> : tensor<2xbf16>} : () -> tensor<2xbf16>
    %5 = "stablehlo.constant"() {value = dense<0x3C00> : tensor<f16>} : () -> tensor<f16>
    %6 = "stablehlo.constant"() {value = dense<"0xFFFFFFFF00000000FFFFFF7F"> : tensor<3xi32>} : () -> tensor<3xi32>
    %7 = "stablehlo.constant"() {value = dense<"0xFFFFFFFF07000000"> : tensor<2xui32>} : () -> tensor<2xui32>
    %8 = "stablehlo.constant"() {value = dense<"0x00000000000000800500000000000000"> : tensor<2xi64>} : () -> tensor<2xi64>
    %9 = "stablehlo.constant"() {value = dense<[[true, false], [false, true]]> : tensor<2x2xi1>} : () -> tensor<2x2xi1>
    %10 = "stablehlo.constant"() {value = dense<true> : tensor<3xi1>} : () -> tensor<3xi1>
    %11 = "stablehlo.constant"() {value = dense<> : tensor<0x3xf32>} : () -> tensor<0x3xf32>
    func.return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11 : tensor<2x2xf32>, tensor<3xf32>, tensor<f32>, tensor<2xf64>, tensor<2xbf16>, tensor<f16>, tensor<3xi32>, tensor<2xui32>, tensor<2xi64>, tensor<2x2xi1>, tensor<3xi1>, tensor<0x3xf32>
  }
}
