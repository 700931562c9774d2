module @convert attributes {mhlo.num_replicas = 1 : i32, mhlo.num_partitions = 1 : i32} {
  func.func public @main(%arg0: tensor<3xf32>, %arg1: tensor<3xf32>, %arg2: tensor<3xf64>, %arg3: tensor<3xbf16>, %arg4: tensor<3xf32>, %arg5: tensor<3xi32>, %arg6: tensor<3xi32>, %arg7: tensor<3xf32>, %arg8: tensor<3xbf16>, %arg9: tensor<3xf16>, %arg10: tensor<3xi32>, %arg11: tensor<3xi1>, %arg12: tensor<3xf32>) -> (tensor<3xi32>, tensor<3xui32>, tensor<3xi64>, tensor<3xi32>, tensor<3xi1>, tensor<3xi1>, tensor<3xf32>, tensor<3xbf16>, tensor<3xf32>, tensor<3xf32>, tensor<3xui32>, tensor<3xf32>, tensor<3xf32>) {
    %0 = "stablehlo.constant"() {value = dense<-2147483648.0> : tensor<3xf32>} : () -> tensor<3xf32>
    %1 = "stablehlo.maximum"(%arg0, %0) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %2 = "stablehlo.constant"() {value = dense<2147483520.0> : tensor<3xf32>} : () -> tensor<3xf32>
    %3 = "stablehlo.minimum"(%1, %2) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %4 = "stablehlo.convert"(%3) : (tensor<3xf32>) -> tensor<3xi32>
    %5 = "stablehlo.constant"() {value = dense<2147483648.0> : tensor<3xf32>} : () -> tensor<3xf32>
    %6 = "stablehlo.compare"(%arg0, %5) {comparison_direction = #stablehlo<comparison_direction GE>, compare_type = #stablehlo<comparison_type FLOAT>} : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xi1>
    %7 = "stablehlo.constant"() {value = dense<2147483647> : tensor<3xi32>} : () -> tensor<3xi32>
    %8 = "stablehlo.select"(%6, %7, %4) : (tensor<3xi1>, tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
    %9 = "stablehlo.compare"(%arg0, %arg0) {comparison_direction = #stablehlo<comparison_direction NE>, compare_type = #stablehlo<comparison_type FLOAT>} : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xi1>
    %10 = "stablehlo.constant"() {value = dense<0> : tensor<3xi32>} : () -> tensor<3xi32>
    %11 = "stablehlo.select"(%9, %10, %8) : (tensor<3xi1>, tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
    %12 = "stablehlo.constant"() {value = dense<0.0> : tensor<3xf32>} : () -> tensor<3xf32>
    %13 = "stablehlo.maximum"(%arg1, %12) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %14 = "stablehlo.constant"() {value = dense<4294967040.0> : tensor<3xf32>} : () -> tensor<3xf32>
    %15 = "stablehlo.minimum"(%13, %14) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %16 = "stablehlo.convert"(%15) : (tensor<3xf32>) -> tensor<3xui32>
    %17 = "stablehlo.constant"() {value = dense<4294967296.0> : tensor<3xf32>} : () -> tensor<3xf32>
    %18 = "stablehlo.compare"(%arg1, %17) {comparison_direction = #stablehlo<comparison_direction GE>, compare_type = #stablehlo<comparison_type FLOAT>} : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xi1>
    %19 = "stablehlo.constant"() {value = dense<4294967295> : tensor<3xui32>} : () -> tensor<3xui32>
    %20 = "stablehlo.select"(%18, %19, %16) : (tensor<3xi1>, tensor<3xui32>, tensor<3xui32>) -> tensor<3xui32>
    %21 = "stablehlo.compare"(%arg1, %arg1) {comparison_direction = #stablehlo<comparison_direction NE>, compare_type = #stablehlo<comparison_type FLOAT>} : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xi1>
    %22 = "stablehlo.constant"() {value = dense<0> : tensor<3xui32>} : () -> tensor<3xui32>
    %23 = "stablehlo.select"(%21, %22, %20) : (tensor<3xi1>, tensor<3xui32>, tensor<3xui32>) -> tensor<3xui32>
    %24 = "stablehlo.constant"() {value = dense<-9223372036854776000.0> : tensor<3xf64>} : () -> tensor<3xf64>
    %25 = "stablehlo.maximum"(%arg2, %24) : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
    %26 = "stablehlo.constant"() {value = dense<9223372036854775000.0> : tensor<3xf64>} : () -> tensor<3xf64>
    %27 = "stablehlo.minimum"(%25, %26) : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
    %28 = "stablehlo.convert"(%27) : (tensor<3xf64>) -> tensor<3xi64>
    %29 = "stablehlo.constant"() {value = dense<9223372036854776000.0> : tensor<3xf64>} : () -> tensor<3xf64>
    %30 = "stablehlo.compare"(%arg2, %29) {comparison_direction = #stablehlo<comparison_direction GE>, compare_type = #stablehlo<comparison_type FLOAT>} : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xi1>
    %31 = "stablehlo.constant"() {value = dense<9223372036854775807> : tensor<3xi64>} : () -> tensor<3xi64>
    %32 = "stablehlo.select"(%30, %31, %28) : (tensor<3xi1>, tensor<3xi64>, tensor<3xi64>) -> tensor<3xi64>
    %33 = "stablehlo.compare"(%arg2, %arg2) {comparison_direction = #stablehlo<comparison_direction NE>, compare_type = #stablehlo<comparison_type FLOAT>} : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xi1>
    %34 = "stablehlo.constant"() {value = dense<0> : tensor<3xi64>} : () -> tensor<3xi64>
    %35 = "stablehlo.select"(%33, %34, %32) : (tensor<3xi1>, tensor<3xi64>, tensor<3xi64>) -> tensor<3xi64>
    %36 = "stablehlo.convert"(%arg3) : (tensor<3xbf16>) -> tensor<3xf32>
    %37 = "stablehlo.maximum"(%36, %0) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %38 = "stablehlo.minimum"(%37, %2) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %39 = "stablehlo.convert"(%38) : (tensor<3xf32>) -> tensor<3xi32>
    %40 = "stablehlo.compare"(%36, %5) {comparison_direction = #stablehlo<comparison_direction GE>, compare_type = #stablehlo<comparison_type FLOAT>} : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xi1>
    %41 = "stablehlo.select"(%40, %7, %39) : (tensor<3xi1>, tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
    %42 = "stablehlo.compare"(%36, %36) {comparison_direction = #stablehlo<comparison_direction NE>, compare_type = #stablehlo<comparison_type FLOAT>} : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xi1>
    %43 = "stablehlo.select"(%42, %10, %41) : (tensor<3xi1>, tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
    %44 = "stablehlo.compare"(%arg4, %12) {comparison_direction = #stablehlo<comparison_direction NE>, compare_type = #stablehlo<comparison_type FLOAT>} : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xi1>
    %45 = "stablehlo.compare"(%arg5, %10) {comparison_direction = #stablehlo<comparison_direction NE>, compare_type = #stablehlo<comparison_type SIGNED>} : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi1>
    %46 = "stablehlo.convert"(%arg6) : (tensor<3xi32>) -> tensor<3xf32>
    %47 = "stablehlo.convert"(%arg7) : (tensor<3xf32>) -> tensor<3xbf16>
    %48 = "stablehlo.convert"(%arg8) : (tensor<3xbf16>) -> tensor<3xf32>
    %49 = "stablehlo.convert"(%arg9) : (tensor<3xf16>) -> tensor<3xf32>
    %50 = "stablehlo.convert"(%arg10) : (tensor<3xi32>) -> tensor<3xui32>
    %51 = "stablehlo.convert"(%arg11) : (tensor<3xi1>) -> tensor<3xf32>
    func.return %11, %23, %35, %43, %44, %45, %46, %47, %48, %49, %50, %51, %arg12 : tensor<3xi32>, tensor<3xui32>, tensor<3xi64>, tensor<3xi32>, tensor<3xi1>, tensor<3xi1>, tensor<3xf32>, tensor<3xbf16>, tensor<3xf32>, tensor<3xf32>, tensor<3xui32>, tensor<3xf32>, tensor<3xf32>
  }
}
