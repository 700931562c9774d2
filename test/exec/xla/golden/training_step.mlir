module @mlp_train_step attributes {mhlo.num_replicas = 1 : i32, mhlo.num_partitions = 1 : i32} {
  func.func public @main(%arg0: tensor<16xf32> {tf.aliasing_output = 1 : i32}, %arg1: tensor<4xf32> {tf.aliasing_output = 2 : i32}, %arg2: tensor<8x16xf32> {tf.aliasing_output = 3 : i32}, %arg3: tensor<16x4xf32> {tf.aliasing_output = 4 : i32}, %arg4: tensor<16xf32> {tf.aliasing_output = 5 : i32}, %arg5: tensor<4xf32> {tf.aliasing_output = 6 : i32}, %arg6: tensor<8x16xf32> {tf.aliasing_output = 7 : i32}, %arg7: tensor<16x4xf32> {tf.aliasing_output = 8 : i32}, %arg8: tensor<f32> {tf.aliasing_output = 0 : i32}, %arg9: tensor<16xf32> {tf.aliasing_output = 10 : i32}, %arg10: tensor<4xf32> {tf.aliasing_output = 11 : i32}, %arg11: tensor<8x16xf32> {tf.aliasing_output = 12 : i32}, %arg12: tensor<16x4xf32> {tf.aliasing_output = 13 : i32}, %arg13: tensor<16x8xf32>, %arg14: tensor<16xi32>, %arg15: tensor<f32>) -> (tensor<f32>, tensor<16xf32>, tensor<4xf32>, tensor<8x16xf32>, tensor<16x4xf32>, tensor<16xf32>, tensor<4xf32>, tensor<8x16xf32>, tensor<16x4xf32>, tensor<f32>, tensor<16xf32>, tensor<4xf32>, tensor<8x16xf32>, tensor<16x4xf32>) {
    %0 = "stablehlo.constant"() {value = dense<0.5> : tensor<f32>} : () -> tensor<f32>
    %1 = "stablehlo.constant"() {value = dense<0.7071067690849304> : tensor<f32>} : () -> tensor<f32>
    %2 = "stablehlo.constant"() {value = dense<1.0> : tensor<f32>} : () -> tensor<f32>
    %3 = "stablehlo.constant"() {value = dense<-100> : tensor<i32>} : () -> tensor<i32>
    %4 = "stablehlo.constant"() {value = dense<0> : tensor<i32>} : () -> tensor<i32>
    %5 = "stablehlo.constant"() {value = dense<1.0> : tensor<f32>} : () -> tensor<f32>
    %6 = "stablehlo.constant"() {value = dense<1.128379225730896> : tensor<f32>} : () -> tensor<f32>
    %7 = "stablehlo.constant"() {value = dense<0.8999999761581421> : tensor<f32>} : () -> tensor<f32>
    %8 = "stablehlo.constant"() {value = dense<0.9990000128746033> : tensor<f32>} : () -> tensor<f32>
    %9 = "stablehlo.constant"() {value = dense<0.8999999761581421> : tensor<f32>} : () -> tensor<f32>
    %10 = "stablehlo.constant"() {value = dense<0.10000000149011612> : tensor<f32>} : () -> tensor<f32>
    %11 = "stablehlo.constant"() {value = dense<0.9990000128746033> : tensor<f32>} : () -> tensor<f32>
    %12 = "stablehlo.constant"() {value = dense<0.0010000000474974513> : tensor<f32>} : () -> tensor<f32>
    %13 = "stablehlo.constant"() {value = dense<9.99999993922529e-9> : tensor<f32>} : () -> tensor<f32>
    %14 = "stablehlo.constant"() {value = dense<0.009999999776482582> : tensor<f32>} : () -> tensor<f32>
    %15 = "stablehlo.dot_general"(%arg13, %arg2) {dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>, precision_config = [#stablehlo<precision HIGHEST>, #stablehlo<precision HIGHEST>]} : (tensor<16x8xf32>, tensor<8x16xf32>) -> tensor<16x16xf32>
    %16 = "stablehlo.broadcast_in_dim"(%arg0) {broadcast_dimensions = array<i64: 1>} : (tensor<16xf32>) -> tensor<16x16xf32>
    %17 = "stablehlo.add"(%15, %16) : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
    %18 = "stablehlo.broadcast_in_dim"(%0) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<16x16xf32>
    %19 = "stablehlo.multiply"(%17, %18) : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
    %20 = "stablehlo.broadcast_in_dim"(%1) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<16x16xf32>
    %21 = "stablehlo.multiply"(%17, %20) : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
    %22 = "chlo.erf"(%21) : (tensor<16x16xf32>) -> tensor<16x16xf32>
    %23 = "stablehlo.broadcast_in_dim"(%2) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<16x16xf32>
    %24 = "stablehlo.add"(%22, %23) : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
    %25 = "stablehlo.multiply"(%19, %24) : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
    %26 = "stablehlo.dot_general"(%25, %arg3) {dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>, precision_config = [#stablehlo<precision HIGHEST>, #stablehlo<precision HIGHEST>]} : (tensor<16x16xf32>, tensor<16x4xf32>) -> tensor<16x4xf32>
    %27 = "stablehlo.broadcast_in_dim"(%arg1) {broadcast_dimensions = array<i64: 1>} : (tensor<4xf32>) -> tensor<16x4xf32>
    %28 = "stablehlo.add"(%26, %27) : (tensor<16x4xf32>, tensor<16x4xf32>) -> tensor<16x4xf32>
    %29 = "stablehlo.broadcast_in_dim"(%3) {broadcast_dimensions = array<i64>} : (tensor<i32>) -> tensor<16xi32>
    %30 = "stablehlo.compare"(%arg14, %29) {comparison_direction = #stablehlo<comparison_direction NE>, compare_type = #stablehlo<comparison_type SIGNED>} : (tensor<16xi32>, tensor<16xi32>) -> tensor<16xi1>
    %31 = "stablehlo.broadcast_in_dim"(%4) {broadcast_dimensions = array<i64>} : (tensor<i32>) -> tensor<16xi32>
    %32 = "stablehlo.select"(%30, %arg14, %31) : (tensor<16xi1>, tensor<16xi32>, tensor<16xi32>) -> tensor<16xi32>
    %33 = "stablehlo.convert"(%30) : (tensor<16xi1>) -> tensor<16xf32>
    %34 = "stablehlo.constant"() {value = dense<0xFF800000> : tensor<f32>} : () -> tensor<f32>
    %35 = "stablehlo.reduce"(%28, %34) ({
      ^bb0(%36: tensor<f32>, %37: tensor<f32>):
        %38 = "stablehlo.maximum"(%36, %37) : (tensor<f32>, tensor<f32>) -> tensor<f32>
        "stablehlo.return"(%38) : (tensor<f32>) -> ()
    }) {dimensions = array<i64: 1>} : (tensor<16x4xf32>, tensor<f32>) -> tensor<16xf32>
    %39 = "stablehlo.is_finite"(%35) : (tensor<16xf32>) -> tensor<16xi1>
    %40 = "stablehlo.constant"() {value = dense<0.0> : tensor<16xf32>} : () -> tensor<16xf32>
    %41 = "stablehlo.select"(%39, %35, %40) : (tensor<16xi1>, tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    %42 = "stablehlo.broadcast_in_dim"(%41) {broadcast_dimensions = array<i64: 0>} : (tensor<16xf32>) -> tensor<16x4xf32>
    %43 = "stablehlo.subtract"(%28, %42) : (tensor<16x4xf32>, tensor<16x4xf32>) -> tensor<16x4xf32>
    %44 = "stablehlo.exponential"(%43) : (tensor<16x4xf32>) -> tensor<16x4xf32>
    %45 = "stablehlo.constant"() {value = dense<0.0> : tensor<f32>} : () -> tensor<f32>
    %46 = "stablehlo.reduce"(%44, %45) ({
      ^bb0(%47: tensor<f32>, %48: tensor<f32>):
        %49 = "stablehlo.add"(%47, %48) : (tensor<f32>, tensor<f32>) -> tensor<f32>
        "stablehlo.return"(%49) : (tensor<f32>) -> ()
    }) {dimensions = array<i64: 1>} : (tensor<16x4xf32>, tensor<f32>) -> tensor<16xf32>
    %50 = "stablehlo.log"(%46) : (tensor<16xf32>) -> tensor<16xf32>
    %51 = "stablehlo.add"(%50, %41) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    %52 = "stablehlo.constant"() {value = dense<0> : tensor<16xi32>} : () -> tensor<16xi32>
    %53 = "stablehlo.maximum"(%32, %52) : (tensor<16xi32>, tensor<16xi32>) -> tensor<16xi32>
    %54 = "stablehlo.constant"() {value = dense<3> : tensor<16xi32>} : () -> tensor<16xi32>
    %55 = "stablehlo.minimum"(%53, %54) : (tensor<16xi32>, tensor<16xi32>) -> tensor<16xi32>
    %56 = "stablehlo.broadcast_in_dim"(%55) {broadcast_dimensions = array<i64: 0>} : (tensor<16xi32>) -> tensor<16x4xi32>
    %57 = "stablehlo.iota"() {iota_dimension = 1 : i64} : () -> tensor<16x4xi32>
    %58 = "stablehlo.compare"(%57, %56) {comparison_direction = #stablehlo<comparison_direction EQ>, compare_type = #stablehlo<comparison_type SIGNED>} : (tensor<16x4xi32>, tensor<16x4xi32>) -> tensor<16x4xi1>
    %59 = "stablehlo.constant"() {value = dense<0.0> : tensor<16x4xf32>} : () -> tensor<16x4xf32>
    %60 = "stablehlo.select"(%58, %28, %59) : (tensor<16x4xi1>, tensor<16x4xf32>, tensor<16x4xf32>) -> tensor<16x4xf32>
    %61 = "stablehlo.reduce"(%60, %45) ({
      ^bb0(%62: tensor<f32>, %63: tensor<f32>):
        %64 = "stablehlo.add"(%62, %63) : (tensor<f32>, tensor<f32>) -> tensor<f32>
        "stablehlo.return"(%64) : (tensor<f32>) -> ()
    }) {dimensions = array<i64: 1>} : (tensor<16x4xf32>, tensor<f32>) -> tensor<16xf32>
    %65 = "stablehlo.subtract"(%51, %61) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    %66 = "stablehlo.multiply"(%65, %33) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    %67 = "stablehlo.reduce"(%66, %45) ({
      ^bb0(%68: tensor<f32>, %69: tensor<f32>):
        %70 = "stablehlo.add"(%68, %69) : (tensor<f32>, tensor<f32>) -> tensor<f32>
        "stablehlo.return"(%70) : (tensor<f32>) -> ()
    }) {dimensions = array<i64: 0>} : (tensor<16xf32>, tensor<f32>) -> tensor<f32>
    %71 = "stablehlo.reduce"(%33, %45) ({
      ^bb0(%72: tensor<f32>, %73: tensor<f32>):
        %74 = "stablehlo.add"(%72, %73) : (tensor<f32>, tensor<f32>) -> tensor<f32>
        "stablehlo.return"(%74) : (tensor<f32>) -> ()
    }) {dimensions = array<i64: 0>} : (tensor<16xf32>, tensor<f32>) -> tensor<f32>
    %75 = "stablehlo.maximum"(%71, %2) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %76 = "stablehlo.compare"(%71, %71) {comparison_direction = #stablehlo<comparison_direction NE>, compare_type = #stablehlo<comparison_type FLOAT>} : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %77 = "stablehlo.compare"(%2, %2) {comparison_direction = #stablehlo<comparison_direction NE>, compare_type = #stablehlo<comparison_type FLOAT>} : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %78 = "stablehlo.select"(%77, %2, %75) : (tensor<i1>, tensor<f32>, tensor<f32>) -> tensor<f32>
    %79 = "stablehlo.select"(%76, %71, %78) : (tensor<i1>, tensor<f32>, tensor<f32>) -> tensor<f32>
    %80 = "stablehlo.divide"(%67, %79) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %81 = "stablehlo.divide"(%5, %79) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %82 = "stablehlo.broadcast_in_dim"(%81) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<16xf32>
    %83 = "stablehlo.multiply"(%82, %33) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    %84 = "stablehlo.reduce"(%28, %34) ({
      ^bb0(%85: tensor<f32>, %86: tensor<f32>):
        %87 = "stablehlo.maximum"(%85, %86) : (tensor<f32>, tensor<f32>) -> tensor<f32>
        "stablehlo.return"(%87) : (tensor<f32>) -> ()
    }) {dimensions = array<i64: 1>} : (tensor<16x4xf32>, tensor<f32>) -> tensor<16xf32>
    %88 = "stablehlo.is_finite"(%84) : (tensor<16xf32>) -> tensor<16xi1>
    %89 = "stablehlo.select"(%88, %84, %40) : (tensor<16xi1>, tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    %90 = "stablehlo.broadcast_in_dim"(%89) {broadcast_dimensions = array<i64: 0>} : (tensor<16xf32>) -> tensor<16x4xf32>
    %91 = "stablehlo.subtract"(%28, %90) : (tensor<16x4xf32>, tensor<16x4xf32>) -> tensor<16x4xf32>
    %92 = "stablehlo.exponential"(%91) : (tensor<16x4xf32>) -> tensor<16x4xf32>
    %93 = "stablehlo.reduce"(%92, %45) ({
      ^bb0(%94: tensor<f32>, %95: tensor<f32>):
        %96 = "stablehlo.add"(%94, %95) : (tensor<f32>, tensor<f32>) -> tensor<f32>
        "stablehlo.return"(%96) : (tensor<f32>) -> ()
    }) {dimensions = array<i64: 1>} : (tensor<16x4xf32>, tensor<f32>) -> tensor<16xf32>
    %97 = "stablehlo.log"(%93) : (tensor<16xf32>) -> tensor<16xf32>
    %98 = "stablehlo.add"(%97, %89) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    %99 = "stablehlo.maximum"(%32, %52) : (tensor<16xi32>, tensor<16xi32>) -> tensor<16xi32>
    %100 = "stablehlo.minimum"(%99, %54) : (tensor<16xi32>, tensor<16xi32>) -> tensor<16xi32>
    %101 = "stablehlo.broadcast_in_dim"(%100) {broadcast_dimensions = array<i64: 0>} : (tensor<16xi32>) -> tensor<16x4xi32>
    %102 = "stablehlo.iota"() {iota_dimension = 1 : i64} : () -> tensor<16x4xi32>
    %103 = "stablehlo.compare"(%102, %101) {comparison_direction = #stablehlo<comparison_direction EQ>, compare_type = #stablehlo<comparison_type SIGNED>} : (tensor<16x4xi32>, tensor<16x4xi32>) -> tensor<16x4xi1>
    %104 = "stablehlo.broadcast_in_dim"(%98) {broadcast_dimensions = array<i64: 0>} : (tensor<16xf32>) -> tensor<16x4xf32>
    %105 = "stablehlo.subtract"(%28, %104) : (tensor<16x4xf32>, tensor<16x4xf32>) -> tensor<16x4xf32>
    %106 = "stablehlo.exponential"(%105) : (tensor<16x4xf32>) -> tensor<16x4xf32>
    %107 = "stablehlo.constant"() {value = dense<1.0> : tensor<16x4xf32>} : () -> tensor<16x4xf32>
    %108 = "stablehlo.select"(%103, %107, %59) : (tensor<16x4xi1>, tensor<16x4xf32>, tensor<16x4xf32>) -> tensor<16x4xf32>
    %109 = "stablehlo.broadcast_in_dim"(%83) {broadcast_dimensions = array<i64: 0>} : (tensor<16xf32>) -> tensor<16x4xf32>
    %110 = "stablehlo.subtract"(%106, %108) : (tensor<16x4xf32>, tensor<16x4xf32>) -> tensor<16x4xf32>
    %111 = "stablehlo.multiply"(%110, %109) : (tensor<16x4xf32>, tensor<16x4xf32>) -> tensor<16x4xf32>
    %112 = "stablehlo.reduce"(%111, %45) ({
      ^bb0(%113: tensor<f32>, %114: tensor<f32>):
        %115 = "stablehlo.add"(%113, %114) : (tensor<f32>, tensor<f32>) -> tensor<f32>
        "stablehlo.return"(%115) : (tensor<f32>) -> ()
    }) {dimensions = array<i64: 0>} : (tensor<16x4xf32>, tensor<f32>) -> tensor<4xf32>
    %116 = "stablehlo.dot_general"(%111, %arg3) {dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1]>, precision_config = [#stablehlo<precision HIGHEST>, #stablehlo<precision HIGHEST>]} : (tensor<16x4xf32>, tensor<16x4xf32>) -> tensor<16x16xf32>
    %117 = "stablehlo.dot_general"(%111, %25) {dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [0], rhs_contracting_dimensions = [0]>, precision_config = [#stablehlo<precision HIGHEST>, #stablehlo<precision HIGHEST>]} : (tensor<16x4xf32>, tensor<16x16xf32>) -> tensor<4x16xf32>
    %118 = "stablehlo.transpose"(%117) {permutation = array<i64: 1, 0>} : (tensor<4x16xf32>) -> tensor<16x4xf32>
    %119 = "stablehlo.multiply"(%116, %24) : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
    %120 = "stablehlo.multiply"(%116, %19) : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
    %121 = "stablehlo.multiply"(%21, %21) : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
    %122 = "stablehlo.negate"(%121) : (tensor<16x16xf32>) -> tensor<16x16xf32>
    %123 = "stablehlo.exponential"(%122) : (tensor<16x16xf32>) -> tensor<16x16xf32>
    %124 = "stablehlo.broadcast_in_dim"(%6) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<16x16xf32>
    %125 = "stablehlo.multiply"(%123, %124) : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
    %126 = "stablehlo.multiply"(%120, %125) : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
    %127 = "stablehlo.multiply"(%126, %20) : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
    %128 = "stablehlo.multiply"(%119, %18) : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
    %129 = "stablehlo.add"(%127, %128) : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
    %130 = "stablehlo.reduce"(%129, %45) ({
      ^bb0(%131: tensor<f32>, %132: tensor<f32>):
        %133 = "stablehlo.add"(%131, %132) : (tensor<f32>, tensor<f32>) -> tensor<f32>
        "stablehlo.return"(%133) : (tensor<f32>) -> ()
    }) {dimensions = array<i64: 0>} : (tensor<16x16xf32>, tensor<f32>) -> tensor<16xf32>
    %134 = "stablehlo.dot_general"(%129, %arg13) {dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [0], rhs_contracting_dimensions = [0]>, precision_config = [#stablehlo<precision HIGHEST>, #stablehlo<precision HIGHEST>]} : (tensor<16x16xf32>, tensor<16x8xf32>) -> tensor<16x8xf32>
    %135 = "stablehlo.transpose"(%134) {permutation = array<i64: 1, 0>} : (tensor<16x8xf32>) -> tensor<8x16xf32>
    %136 = "stablehlo.add"(%arg8, %5) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %137 = "stablehlo.broadcast_in_dim"(%7) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<f32>
    %138 = "stablehlo.power"(%137, %136) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %139 = "stablehlo.subtract"(%5, %138) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %140 = "stablehlo.broadcast_in_dim"(%8) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<f32>
    %141 = "stablehlo.power"(%140, %136) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %142 = "stablehlo.subtract"(%5, %141) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %143 = "stablehlo.broadcast_in_dim"(%9) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<16xf32>
    %144 = "stablehlo.multiply"(%arg4, %143) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    %145 = "stablehlo.broadcast_in_dim"(%10) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<16xf32>
    %146 = "stablehlo.multiply"(%130, %145) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    %147 = "stablehlo.add"(%144, %146) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    %148 = "stablehlo.broadcast_in_dim"(%9) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<4xf32>
    %149 = "stablehlo.multiply"(%arg5, %148) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %150 = "stablehlo.broadcast_in_dim"(%10) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<4xf32>
    %151 = "stablehlo.multiply"(%112, %150) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %152 = "stablehlo.add"(%149, %151) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %153 = "stablehlo.broadcast_in_dim"(%9) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<8x16xf32>
    %154 = "stablehlo.multiply"(%arg6, %153) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %155 = "stablehlo.broadcast_in_dim"(%10) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<8x16xf32>
    %156 = "stablehlo.multiply"(%135, %155) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %157 = "stablehlo.add"(%154, %156) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %158 = "stablehlo.broadcast_in_dim"(%9) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<16x4xf32>
    %159 = "stablehlo.multiply"(%arg7, %158) : (tensor<16x4xf32>, tensor<16x4xf32>) -> tensor<16x4xf32>
    %160 = "stablehlo.broadcast_in_dim"(%10) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<16x4xf32>
    %161 = "stablehlo.multiply"(%118, %160) : (tensor<16x4xf32>, tensor<16x4xf32>) -> tensor<16x4xf32>
    %162 = "stablehlo.add"(%159, %161) : (tensor<16x4xf32>, tensor<16x4xf32>) -> tensor<16x4xf32>
    %163 = "stablehlo.broadcast_in_dim"(%11) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<16xf32>
    %164 = "stablehlo.multiply"(%arg9, %163) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    %165 = "stablehlo.multiply"(%130, %130) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    %166 = "stablehlo.broadcast_in_dim"(%12) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<16xf32>
    %167 = "stablehlo.multiply"(%165, %166) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    %168 = "stablehlo.add"(%164, %167) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    %169 = "stablehlo.broadcast_in_dim"(%11) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<4xf32>
    %170 = "stablehlo.multiply"(%arg10, %169) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %171 = "stablehlo.multiply"(%112, %112) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %172 = "stablehlo.broadcast_in_dim"(%12) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<4xf32>
    %173 = "stablehlo.multiply"(%171, %172) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %174 = "stablehlo.add"(%170, %173) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %175 = "stablehlo.broadcast_in_dim"(%11) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<8x16xf32>
    %176 = "stablehlo.multiply"(%arg11, %175) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %177 = "stablehlo.multiply"(%135, %135) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %178 = "stablehlo.broadcast_in_dim"(%12) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<8x16xf32>
    %179 = "stablehlo.multiply"(%177, %178) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %180 = "stablehlo.add"(%176, %179) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %181 = "stablehlo.broadcast_in_dim"(%11) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<16x4xf32>
    %182 = "stablehlo.multiply"(%arg12, %181) : (tensor<16x4xf32>, tensor<16x4xf32>) -> tensor<16x4xf32>
    %183 = "stablehlo.multiply"(%118, %118) : (tensor<16x4xf32>, tensor<16x4xf32>) -> tensor<16x4xf32>
    %184 = "stablehlo.broadcast_in_dim"(%12) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<16x4xf32>
    %185 = "stablehlo.multiply"(%183, %184) : (tensor<16x4xf32>, tensor<16x4xf32>) -> tensor<16x4xf32>
    %186 = "stablehlo.add"(%182, %185) : (tensor<16x4xf32>, tensor<16x4xf32>) -> tensor<16x4xf32>
    %187 = "stablehlo.broadcast_in_dim"(%139) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<16xf32>
    %188 = "stablehlo.divide"(%147, %187) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    %189 = "stablehlo.broadcast_in_dim"(%142) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<16xf32>
    %190 = "stablehlo.divide"(%168, %189) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    %191 = "stablehlo.sqrt"(%190) : (tensor<16xf32>) -> tensor<16xf32>
    %192 = "stablehlo.broadcast_in_dim"(%13) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<16xf32>
    %193 = "stablehlo.add"(%191, %192) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    %194 = "stablehlo.divide"(%188, %193) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    %195 = "stablehlo.broadcast_in_dim"(%14) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<16xf32>
    %196 = "stablehlo.multiply"(%arg0, %195) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    %197 = "stablehlo.add"(%194, %196) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    %198 = "stablehlo.broadcast_in_dim"(%arg15) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<16xf32>
    %199 = "stablehlo.multiply"(%198, %197) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    %200 = "stablehlo.subtract"(%arg0, %199) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    %201 = "stablehlo.broadcast_in_dim"(%139) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<4xf32>
    %202 = "stablehlo.divide"(%152, %201) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %203 = "stablehlo.broadcast_in_dim"(%142) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<4xf32>
    %204 = "stablehlo.divide"(%174, %203) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %205 = "stablehlo.sqrt"(%204) : (tensor<4xf32>) -> tensor<4xf32>
    %206 = "stablehlo.broadcast_in_dim"(%13) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<4xf32>
    %207 = "stablehlo.add"(%205, %206) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %208 = "stablehlo.divide"(%202, %207) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %209 = "stablehlo.broadcast_in_dim"(%14) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<4xf32>
    %210 = "stablehlo.multiply"(%arg1, %209) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %211 = "stablehlo.add"(%208, %210) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %212 = "stablehlo.broadcast_in_dim"(%arg15) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<4xf32>
    %213 = "stablehlo.multiply"(%212, %211) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %214 = "stablehlo.subtract"(%arg1, %213) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %215 = "stablehlo.broadcast_in_dim"(%139) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<8x16xf32>
    %216 = "stablehlo.divide"(%157, %215) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %217 = "stablehlo.broadcast_in_dim"(%142) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<8x16xf32>
    %218 = "stablehlo.divide"(%180, %217) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %219 = "stablehlo.sqrt"(%218) : (tensor<8x16xf32>) -> tensor<8x16xf32>
    %220 = "stablehlo.broadcast_in_dim"(%13) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<8x16xf32>
    %221 = "stablehlo.add"(%219, %220) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %222 = "stablehlo.divide"(%216, %221) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %223 = "stablehlo.broadcast_in_dim"(%14) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<8x16xf32>
    %224 = "stablehlo.multiply"(%arg2, %223) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %225 = "stablehlo.add"(%222, %224) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %226 = "stablehlo.broadcast_in_dim"(%arg15) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<8x16xf32>
    %227 = "stablehlo.multiply"(%226, %225) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %228 = "stablehlo.subtract"(%arg2, %227) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %229 = "stablehlo.broadcast_in_dim"(%139) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<16x4xf32>
    %230 = "stablehlo.divide"(%162, %229) : (tensor<16x4xf32>, tensor<16x4xf32>) -> tensor<16x4xf32>
    %231 = "stablehlo.broadcast_in_dim"(%142) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<16x4xf32>
    %232 = "stablehlo.divide"(%186, %231) : (tensor<16x4xf32>, tensor<16x4xf32>) -> tensor<16x4xf32>
    %233 = "stablehlo.sqrt"(%232) : (tensor<16x4xf32>) -> tensor<16x4xf32>
    %234 = "stablehlo.broadcast_in_dim"(%13) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<16x4xf32>
    %235 = "stablehlo.add"(%233, %234) : (tensor<16x4xf32>, tensor<16x4xf32>) -> tensor<16x4xf32>
    %236 = "stablehlo.divide"(%230, %235) : (tensor<16x4xf32>, tensor<16x4xf32>) -> tensor<16x4xf32>
    %237 = "stablehlo.broadcast_in_dim"(%14) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<16x4xf32>
    %238 = "stablehlo.multiply"(%arg3, %237) : (tensor<16x4xf32>, tensor<16x4xf32>) -> tensor<16x4xf32>
    %239 = "stablehlo.add"(%236, %238) : (tensor<16x4xf32>, tensor<16x4xf32>) -> tensor<16x4xf32>
    %240 = "stablehlo.broadcast_in_dim"(%arg15) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<16x4xf32>
    %241 = "stablehlo.multiply"(%240, %239) : (tensor<16x4xf32>, tensor<16x4xf32>) -> tensor<16x4xf32>
    %242 = "stablehlo.subtract"(%arg3, %241) : (tensor<16x4xf32>, tensor<16x4xf32>) -> tensor<16x4xf32>
    func.return %80, %200, %214, %228, %242, %147, %152, %157, %162, %136, %168, %174, %180, %186 : tensor<f32>, tensor<16xf32>, tensor<4xf32>, tensor<8x16xf32>, tensor<16x4xf32>, tensor<16xf32>, tensor<4xf32>, tensor<8x16xf32>, tensor<16x4xf32>, tensor<f32>, tensor<16xf32>, tensor<4xf32>, tensor<8x16xf32>, tensor<16x4xf32>
  }
}
