module @softmax_cross_entropy_grad attributes {mhlo.num_replicas = 1 : i32, mhlo.num_partitions = 1 : i32} {
  func.func public @main(%arg0: tensor<3x5xf32>, %arg1: tensor<3xi32>, %arg2: tensor<3xf32>, %arg3: tensor<2x4xbf16>, %arg4: tensor<2xui32>, %arg5: tensor<2xbf16>) -> (tensor<3x5xf32>, tensor<2x4xbf16>) {
    %0 = "stablehlo.constant"() {value = dense<0xFF800000> : tensor<f32>} : () -> tensor<f32>
    %1 = "stablehlo.reduce"(%arg0, %0) ({
      ^bb0(%2: tensor<f32>, %3: tensor<f32>):
        %4 = "stablehlo.maximum"(%2, %3) : (tensor<f32>, tensor<f32>) -> tensor<f32>
        "stablehlo.return"(%4) : (tensor<f32>) -> ()
    }) {dimensions = array<i64: 1>} : (tensor<3x5xf32>, tensor<f32>) -> tensor<3xf32>
    %5 = "stablehlo.is_finite"(%1) : (tensor<3xf32>) -> tensor<3xi1>
    %6 = "stablehlo.constant"() {value = dense<0.0> : tensor<3xf32>} : () -> tensor<3xf32>
    %7 = "stablehlo.select"(%5, %1, %6) : (tensor<3xi1>, tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %8 = "stablehlo.broadcast_in_dim"(%7) {broadcast_dimensions = array<i64: 0>} : (tensor<3xf32>) -> tensor<3x5xf32>
    %9 = "stablehlo.subtract"(%arg0, %8) : (tensor<3x5xf32>, tensor<3x5xf32>) -> tensor<3x5xf32>
    %10 = "stablehlo.exponential"(%9) : (tensor<3x5xf32>) -> tensor<3x5xf32>
    %11 = "stablehlo.constant"() {value = dense<0.0> : tensor<f32>} : () -> tensor<f32>
    %12 = "stablehlo.reduce"(%10, %11) ({
      ^bb0(%13: tensor<f32>, %14: tensor<f32>):
        %15 = "stablehlo.add"(%13, %14) : (tensor<f32>, tensor<f32>) -> tensor<f32>
        "stablehlo.return"(%15) : (tensor<f32>) -> ()
    }) {dimensions = array<i64: 1>} : (tensor<3x5xf32>, tensor<f32>) -> tensor<3xf32>
    %16 = "stablehlo.log"(%12) : (tensor<3xf32>) -> tensor<3xf32>
    %17 = "stablehlo.add"(%16, %7) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %18 = "stablehlo.constant"() {value = dense<0> : tensor<3xi32>} : () -> tensor<3xi32>
    %19 = "stablehlo.maximum"(%arg1, %18) : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
    %20 = "stablehlo.constant"() {value = dense<4> : tensor<3xi32>} : () -> tensor<3xi32>
    %21 = "stablehlo.minimum"(%19, %20) : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
    %22 = "stablehlo.broadcast_in_dim"(%21) {broadcast_dimensions = array<i64: 0>} : (tensor<3xi32>) -> tensor<3x5xi32>
    %23 = "stablehlo.iota"() {iota_dimension = 1 : i64} : () -> tensor<3x5xi32>
    %24 = "stablehlo.compare"(%23, %22) {comparison_direction = #stablehlo<comparison_direction EQ>, compare_type = #stablehlo<comparison_type SIGNED>} : (tensor<3x5xi32>, tensor<3x5xi32>) -> tensor<3x5xi1>
    %25 = "stablehlo.broadcast_in_dim"(%17) {broadcast_dimensions = array<i64: 0>} : (tensor<3xf32>) -> tensor<3x5xf32>
    %26 = "stablehlo.subtract"(%arg0, %25) : (tensor<3x5xf32>, tensor<3x5xf32>) -> tensor<3x5xf32>
    %27 = "stablehlo.exponential"(%26) : (tensor<3x5xf32>) -> tensor<3x5xf32>
    %28 = "stablehlo.constant"() {value = dense<1.0> : tensor<3x5xf32>} : () -> tensor<3x5xf32>
    %29 = "stablehlo.constant"() {value = dense<0.0> : tensor<3x5xf32>} : () -> tensor<3x5xf32>
    %30 = "stablehlo.select"(%24, %28, %29) : (tensor<3x5xi1>, tensor<3x5xf32>, tensor<3x5xf32>) -> tensor<3x5xf32>
    %31 = "stablehlo.broadcast_in_dim"(%arg2) {broadcast_dimensions = array<i64: 0>} : (tensor<3xf32>) -> tensor<3x5xf32>
    %32 = "stablehlo.subtract"(%27, %30) : (tensor<3x5xf32>, tensor<3x5xf32>) -> tensor<3x5xf32>
    %33 = "stablehlo.multiply"(%32, %31) : (tensor<3x5xf32>, tensor<3x5xf32>) -> tensor<3x5xf32>
    %34 = "stablehlo.convert"(%arg3) : (tensor<2x4xbf16>) -> tensor<2x4xf32>
    %35 = "stablehlo.reduce"(%34, %0) ({
      ^bb0(%36: tensor<f32>, %37: tensor<f32>):
        %38 = "stablehlo.maximum"(%36, %37) : (tensor<f32>, tensor<f32>) -> tensor<f32>
        "stablehlo.return"(%38) : (tensor<f32>) -> ()
    }) {dimensions = array<i64: 1>} : (tensor<2x4xf32>, tensor<f32>) -> tensor<2xf32>
    %39 = "stablehlo.is_finite"(%35) : (tensor<2xf32>) -> tensor<2xi1>
    %40 = "stablehlo.constant"() {value = dense<0.0> : tensor<2xf32>} : () -> tensor<2xf32>
    %41 = "stablehlo.select"(%39, %35, %40) : (tensor<2xi1>, tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %42 = "stablehlo.broadcast_in_dim"(%41) {broadcast_dimensions = array<i64: 0>} : (tensor<2xf32>) -> tensor<2x4xf32>
    %43 = "stablehlo.subtract"(%34, %42) : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
    %44 = "stablehlo.exponential"(%43) : (tensor<2x4xf32>) -> tensor<2x4xf32>
    %45 = "stablehlo.reduce"(%44, %11) ({
      ^bb0(%46: tensor<f32>, %47: tensor<f32>):
        %48 = "stablehlo.add"(%46, %47) : (tensor<f32>, tensor<f32>) -> tensor<f32>
        "stablehlo.return"(%48) : (tensor<f32>) -> ()
    }) {dimensions = array<i64: 1>} : (tensor<2x4xf32>, tensor<f32>) -> tensor<2xf32>
    %49 = "stablehlo.log"(%45) : (tensor<2xf32>) -> tensor<2xf32>
    %50 = "stablehlo.add"(%49, %41) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %51 = "stablehlo.constant"() {value = dense<3> : tensor<2xui32>} : () -> tensor<2xui32>
    %52 = "stablehlo.minimum"(%arg4, %51) : (tensor<2xui32>, tensor<2xui32>) -> tensor<2xui32>
    %53 = "stablehlo.broadcast_in_dim"(%52) {broadcast_dimensions = array<i64: 0>} : (tensor<2xui32>) -> tensor<2x4xui32>
    %54 = "stablehlo.iota"() {iota_dimension = 1 : i64} : () -> tensor<2x4xui32>
    %55 = "stablehlo.compare"(%54, %53) {comparison_direction = #stablehlo<comparison_direction EQ>, compare_type = #stablehlo<comparison_type UNSIGNED>} : (tensor<2x4xui32>, tensor<2x4xui32>) -> tensor<2x4xi1>
    %56 = "stablehlo.broadcast_in_dim"(%50) {broadcast_dimensions = array<i64: 0>} : (tensor<2xf32>) -> tensor<2x4xf32>
    %57 = "stablehlo.subtract"(%34, %56) : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
    %58 = "stablehlo.exponential"(%57) : (tensor<2x4xf32>) -> tensor<2x4xf32>
    %59 = "stablehlo.constant"() {value = dense<1.0> : tensor<2x4xf32>} : () -> tensor<2x4xf32>
    %60 = "stablehlo.constant"() {value = dense<0.0> : tensor<2x4xf32>} : () -> tensor<2x4xf32>
    %61 = "stablehlo.select"(%55, %59, %60) : (tensor<2x4xi1>, tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
    %62 = "stablehlo.convert"(%arg5) : (tensor<2xbf16>) -> tensor<2xf32>
    %63 = "stablehlo.broadcast_in_dim"(%62) {broadcast_dimensions = array<i64: 0>} : (tensor<2xf32>) -> tensor<2x4xf32>
    %64 = "stablehlo.subtract"(%58, %61) : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
    %65 = "stablehlo.multiply"(%64, %63) : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
    %66 = "stablehlo.convert"(%65) : (tensor<2x4xf32>) -> tensor<2x4xbf16>
    func.return %33, %66 : tensor<3x5xf32>, tensor<2x4xbf16>
  }
}
