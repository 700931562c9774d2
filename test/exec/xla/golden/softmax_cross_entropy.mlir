module @softmax_cross_entropy attributes {mhlo.num_replicas = 1 : i32, mhlo.num_partitions = 1 : i32} {
  func.func public @main(%arg0: tensor<2x3x5xf32>, %arg1: tensor<2x3xi32>, %arg2: tensor<4x6xbf16>, %arg3: tensor<4xui32>) -> (tensor<2x3xf32>, tensor<4xbf16>) {
    %0 = "stablehlo.constant"() {value = dense<0xFF800000> : tensor<f32>} : () -> tensor<f32>
    %1 = "stablehlo.reduce"(%arg0, %0) ({
      ^bb0(%2: tensor<f32>, %3: tensor<f32>):
        %4 = "stablehlo.maximum"(%2, %3) : (tensor<f32>, tensor<f32>) -> tensor<f32>
        "stablehlo.return"(%4) : (tensor<f32>) -> ()
    }) {dimensions = array<i64: 2>} : (tensor<2x3x5xf32>, tensor<f32>) -> tensor<2x3xf32>
    %5 = "stablehlo.is_finite"(%1) : (tensor<2x3xf32>) -> tensor<2x3xi1>
    %6 = "stablehlo.constant"() {value = dense<0.0> : tensor<2x3xf32>} : () -> tensor<2x3xf32>
    %7 = "stablehlo.select"(%5, %1, %6) : (tensor<2x3xi1>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    %8 = "stablehlo.broadcast_in_dim"(%7) {broadcast_dimensions = array<i64: 0, 1>} : (tensor<2x3xf32>) -> tensor<2x3x5xf32>
    %9 = "stablehlo.subtract"(%arg0, %8) : (tensor<2x3x5xf32>, tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
    %10 = "stablehlo.exponential"(%9) : (tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
    %11 = "stablehlo.constant"() {value = dense<0.0> : tensor<f32>} : () -> tensor<f32>
    %12 = "stablehlo.reduce"(%10, %11) ({
      ^bb0(%13: tensor<f32>, %14: tensor<f32>):
        %15 = "stablehlo.add"(%13, %14) : (tensor<f32>, tensor<f32>) -> tensor<f32>
        "stablehlo.return"(%15) : (tensor<f32>) -> ()
    }) {dimensions = array<i64: 2>} : (tensor<2x3x5xf32>, tensor<f32>) -> tensor<2x3xf32>
    %16 = "stablehlo.log"(%12) : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %17 = "stablehlo.add"(%16, %7) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    %18 = "stablehlo.constant"() {value = dense<0> : tensor<2x3xi32>} : () -> tensor<2x3xi32>
    %19 = "stablehlo.maximum"(%arg1, %18) : (tensor<2x3xi32>, tensor<2x3xi32>) -> tensor<2x3xi32>
    %20 = "stablehlo.constant"() {value = dense<4> : tensor<2x3xi32>} : () -> tensor<2x3xi32>
    %21 = "stablehlo.minimum"(%19, %20) : (tensor<2x3xi32>, tensor<2x3xi32>) -> tensor<2x3xi32>
    %22 = "stablehlo.broadcast_in_dim"(%21) {broadcast_dimensions = array<i64: 0, 1>} : (tensor<2x3xi32>) -> tensor<2x3x5xi32>
    %23 = "stablehlo.iota"() {iota_dimension = 2 : i64} : () -> tensor<2x3x5xi32>
    %24 = "stablehlo.compare"(%23, %22) {comparison_direction = #stablehlo<comparison_direction EQ>, compare_type = #stablehlo<comparison_type SIGNED>} : (tensor<2x3x5xi32>, tensor<2x3x5xi32>) -> tensor<2x3x5xi1>
    %25 = "stablehlo.constant"() {value = dense<0.0> : tensor<2x3x5xf32>} : () -> tensor<2x3x5xf32>
    %26 = "stablehlo.select"(%24, %arg0, %25) : (tensor<2x3x5xi1>, tensor<2x3x5xf32>, tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
    %27 = "stablehlo.reduce"(%26, %11) ({
      ^bb0(%28: tensor<f32>, %29: tensor<f32>):
        %30 = "stablehlo.add"(%28, %29) : (tensor<f32>, tensor<f32>) -> tensor<f32>
        "stablehlo.return"(%30) : (tensor<f32>) -> ()
    }) {dimensions = array<i64: 2>} : (tensor<2x3x5xf32>, tensor<f32>) -> tensor<2x3xf32>
    %31 = "stablehlo.subtract"(%17, %27) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    %32 = "stablehlo.convert"(%arg2) : (tensor<4x6xbf16>) -> tensor<4x6xf32>
    %33 = "stablehlo.reduce"(%32, %0) ({
      ^bb0(%34: tensor<f32>, %35: tensor<f32>):
        %36 = "stablehlo.maximum"(%34, %35) : (tensor<f32>, tensor<f32>) -> tensor<f32>
        "stablehlo.return"(%36) : (tensor<f32>) -> ()
    }) {dimensions = array<i64: 1>} : (tensor<4x6xf32>, tensor<f32>) -> tensor<4xf32>
    %37 = "stablehlo.is_finite"(%33) : (tensor<4xf32>) -> tensor<4xi1>
    %38 = "stablehlo.constant"() {value = dense<0.0> : tensor<4xf32>} : () -> tensor<4xf32>
    %39 = "stablehlo.select"(%37, %33, %38) : (tensor<4xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %40 = "stablehlo.broadcast_in_dim"(%39) {broadcast_dimensions = array<i64: 0>} : (tensor<4xf32>) -> tensor<4x6xf32>
    %41 = "stablehlo.subtract"(%32, %40) : (tensor<4x6xf32>, tensor<4x6xf32>) -> tensor<4x6xf32>
    %42 = "stablehlo.exponential"(%41) : (tensor<4x6xf32>) -> tensor<4x6xf32>
    %43 = "stablehlo.reduce"(%42, %11) ({
      ^bb0(%44: tensor<f32>, %45: tensor<f32>):
        %46 = "stablehlo.add"(%44, %45) : (tensor<f32>, tensor<f32>) -> tensor<f32>
        "stablehlo.return"(%46) : (tensor<f32>) -> ()
    }) {dimensions = array<i64: 1>} : (tensor<4x6xf32>, tensor<f32>) -> tensor<4xf32>
    %47 = "stablehlo.log"(%43) : (tensor<4xf32>) -> tensor<4xf32>
    %48 = "stablehlo.add"(%47, %39) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %49 = "stablehlo.constant"() {value = dense<5> : tensor<4xui32>} : () -> tensor<4xui32>
    %50 = "stablehlo.minimum"(%arg3, %49) : (tensor<4xui32>, tensor<4xui32>) -> tensor<4xui32>
    %51 = "stablehlo.broadcast_in_dim"(%50) {broadcast_dimensions = array<i64: 0>} : (tensor<4xui32>) -> tensor<4x6xui32>
    %52 = "stablehlo.iota"() {iota_dimension = 1 : i64} : () -> tensor<4x6xui32>
    %53 = "stablehlo.compare"(%52, %51) {comparison_direction = #stablehlo<comparison_direction EQ>, compare_type = #stablehlo<comparison_type UNSIGNED>} : (tensor<4x6xui32>, tensor<4x6xui32>) -> tensor<4x6xi1>
    %54 = "stablehlo.constant"() {value = dense<0.0> : tensor<4x6xf32>} : () -> tensor<4x6xf32>
    %55 = "stablehlo.select"(%53, %32, %54) : (tensor<4x6xi1>, tensor<4x6xf32>, tensor<4x6xf32>) -> tensor<4x6xf32>
    %56 = "stablehlo.reduce"(%55, %11) ({
      ^bb0(%57: tensor<f32>, %58: tensor<f32>):
        %59 = "stablehlo.add"(%57, %58) : (tensor<f32>, tensor<f32>) -> tensor<f32>
        "stablehlo.return"(%59) : (tensor<f32>) -> ()
    }) {dimensions = array<i64: 1>} : (tensor<4x6xf32>, tensor<f32>) -> tensor<4xf32>
    %60 = "stablehlo.subtract"(%48, %56) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %61 = "stablehlo.convert"(%60) : (tensor<4xf32>) -> tensor<4xbf16>
    func.return %31, %61 : tensor<2x3xf32>, tensor<4xbf16>
  }
}
