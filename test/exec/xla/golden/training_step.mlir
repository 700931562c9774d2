module @mlp_train_step attributes {mhlo.num_replicas = 1 : i32, mhlo.num_partitions = 1 : i32} {
  func.func public @main(%arg0: tensor<16xf32> {tf.aliasing_output = 1 : i32}, %arg1: tensor<4xf32> {tf.aliasing_output = 2 : i32}, %arg2: tensor<8x16xf32> {tf.aliasing_output = 3 : i32}, %arg3: tensor<16x4xf32> {tf.aliasing_output = 4 : i32}, %arg4: tensor<16xf32> {tf.aliasing_output = 5 : i32}, %arg5: tensor<4xf32> {tf.aliasing_output = 6 : i32}, %arg6: tensor<8x16xf32> {tf.aliasing_output = 7 : i32}, %arg7: tensor<16x4xf32> {tf.aliasing_output = 8 : i32}, %arg8: tensor<f32> {tf.aliasing_output = 0 : i32}, %arg9: tensor<16xf32> {tf.aliasing_output = 10 : i32}, %arg10: tensor<4xf32> {tf.aliasing_output = 11 : i32}, %arg11: tensor<8x16xf32> {tf.aliasing_output = 12 : i32}, %arg12: tensor<16x4xf32> {tf.aliasing_output = 13 : i32}, %arg13: tensor<16x8xf32>, %arg14: tensor<16xi32>, %arg15: tensor<f32>) -> (tensor<f32>, tensor<16xf32>, tensor<4xf32>, tensor<8x16xf32>, tensor<16x4xf32>, tensor<16xf32>, tensor<4xf32>, tensor<8x16xf32>, tensor<16x4xf32>, tensor<f32>, tensor<16xf32>, tensor<4xf32>, tensor<8x16xf32>, tensor<16x4xf32>) {
    %0 = "stablehlo.constant"() {value = dense<0.5> : tensor<f32>} : () -> tensor<f32>
    %1 = "stablehlo.constant"() {value = dense<0.7071067690849304> : tensor<f32>} : () -> tensor<f32>
    %2 = "stablehlo.constant"() {value = dense<1.0> : tensor<f32>} : () -> tensor<f32>
    %3 = "stablehlo.constant"() {value = dense<-100> : tensor<i32>} : () -> tensor<i32>
    %4 = "stablehlo.constant"() {value = dense<0> : tensor<i32>} : () -> tensor<i32>
    %5 = "stablehlo.constant"() {value = dense<0.0> : tensor<f32>} : () -> tensor<f32>
    %6 = "stablehlo.constant"() {value = dense<4> : tensor<i32>} : () -> tensor<i32>
    %7 = "stablehlo.constant"() {value = dense<1.0> : tensor<f32>} : () -> tensor<f32>
    %8 = "stablehlo.constant"() {value = dense<0.0> : tensor<f32>} : () -> tensor<f32>
    %9 = "stablehlo.constant"() {value = dense<1.128379225730896> : tensor<f32>} : () -> tensor<f32>
    %10 = "stablehlo.constant"() {value = dense<0.8999999761581421> : tensor<f32>} : () -> tensor<f32>
    %11 = "stablehlo.constant"() {value = dense<0.9990000128746033> : tensor<f32>} : () -> tensor<f32>
    %12 = "stablehlo.constant"() {value = dense<0.8999999761581421> : tensor<f32>} : () -> tensor<f32>
    %13 = "stablehlo.constant"() {value = dense<0.10000000149011612> : tensor<f32>} : () -> tensor<f32>
    %14 = "stablehlo.constant"() {value = dense<0.9990000128746033> : tensor<f32>} : () -> tensor<f32>
    %15 = "stablehlo.constant"() {value = dense<0.0010000000474974513> : tensor<f32>} : () -> tensor<f32>
    %16 = "stablehlo.constant"() {value = dense<9.99999993922529e-9> : tensor<f32>} : () -> tensor<f32>
    %17 = "stablehlo.constant"() {value = dense<0.009999999776482582> : tensor<f32>} : () -> tensor<f32>
    %18 = "stablehlo.dot_general"(%arg13, %arg2) {dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>, precision_config = [#stablehlo<precision HIGHEST>, #stablehlo<precision HIGHEST>]} : (tensor<16x8xf32>, tensor<8x16xf32>) -> tensor<16x16xf32>
    %19 = "stablehlo.broadcast_in_dim"(%arg0) {broadcast_dimensions = array<i64: 1>} : (tensor<16xf32>) -> tensor<16x16xf32>
    %20 = "stablehlo.add"(%18, %19) : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
    %21 = "stablehlo.broadcast_in_dim"(%0) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<16x16xf32>
    %22 = "stablehlo.multiply"(%20, %21) : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
    %23 = "stablehlo.broadcast_in_dim"(%1) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<16x16xf32>
    %24 = "stablehlo.multiply"(%20, %23) : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
    %25 = "chlo.erf"(%24) : (tensor<16x16xf32>) -> tensor<16x16xf32>
    %26 = "stablehlo.broadcast_in_dim"(%2) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<16x16xf32>
    %27 = "stablehlo.add"(%25, %26) : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
    %28 = "stablehlo.multiply"(%22, %27) : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
    %29 = "stablehlo.dot_general"(%28, %arg3) {dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>, precision_config = [#stablehlo<precision HIGHEST>, #stablehlo<precision HIGHEST>]} : (tensor<16x16xf32>, tensor<16x4xf32>) -> tensor<16x4xf32>
    %30 = "stablehlo.broadcast_in_dim"(%arg1) {broadcast_dimensions = array<i64: 1>} : (tensor<4xf32>) -> tensor<16x4xf32>
    %31 = "stablehlo.add"(%29, %30) : (tensor<16x4xf32>, tensor<16x4xf32>) -> tensor<16x4xf32>
    %32 = "stablehlo.broadcast_in_dim"(%3) {broadcast_dimensions = array<i64>} : (tensor<i32>) -> tensor<16xi32>
    %33 = "stablehlo.compare"(%arg14, %32) {comparison_direction = #stablehlo<comparison_direction NE>, compare_type = #stablehlo<comparison_type SIGNED>} : (tensor<16xi32>, tensor<16xi32>) -> tensor<16xi1>
    %34 = "stablehlo.broadcast_in_dim"(%4) {broadcast_dimensions = array<i64>} : (tensor<i32>) -> tensor<16xi32>
    %35 = "stablehlo.select"(%33, %arg14, %34) : (tensor<16xi1>, tensor<16xi32>, tensor<16xi32>) -> tensor<16xi32>
    %36 = "stablehlo.constant"() {value = dense<0xFF800000> : tensor<f32>} : () -> tensor<f32>
    %37 = "stablehlo.reduce"(%31, %36) ({
      ^bb0(%38: tensor<f32>, %39: tensor<f32>):
        %40 = "stablehlo.maximum"(%38, %39) : (tensor<f32>, tensor<f32>) -> tensor<f32>
        "stablehlo.return"(%40) : (tensor<f32>) -> ()
    }) {dimensions = array<i64: 1>} : (tensor<16x4xf32>, tensor<f32>) -> tensor<16xf32>
    %41 = "stablehlo.compare"(%31, %31) {comparison_direction = #stablehlo<comparison_direction NE>, compare_type = #stablehlo<comparison_type FLOAT>} : (tensor<16x4xf32>, tensor<16x4xf32>) -> tensor<16x4xi1>
    %42 = "stablehlo.constant"() {value = dense<false> : tensor<i1>} : () -> tensor<i1>
    %43 = "stablehlo.reduce"(%41, %42) ({
      ^bb0(%44: tensor<i1>, %45: tensor<i1>):
        %46 = "stablehlo.or"(%44, %45) : (tensor<i1>, tensor<i1>) -> tensor<i1>
        "stablehlo.return"(%46) : (tensor<i1>) -> ()
    }) {dimensions = array<i64: 1>} : (tensor<16x4xi1>, tensor<i1>) -> tensor<16xi1>
    %47 = "stablehlo.constant"() {value = dense<0x7FC00000> : tensor<16xf32>} : () -> tensor<16xf32>
    %48 = "stablehlo.select"(%43, %47, %37) : (tensor<16xi1>, tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    %49 = "stablehlo.reshape"(%48) : (tensor<16xf32>) -> tensor<16x1xf32>
    %50 = "stablehlo.is_finite"(%49) : (tensor<16x1xf32>) -> tensor<16x1xi1>
    %51 = "stablehlo.broadcast_in_dim"(%5) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<16x1xf32>
    %52 = "stablehlo.select"(%50, %49, %51) : (tensor<16x1xi1>, tensor<16x1xf32>, tensor<16x1xf32>) -> tensor<16x1xf32>
    %53 = "stablehlo.broadcast_in_dim"(%52) {broadcast_dimensions = array<i64: 0, 1>} : (tensor<16x1xf32>) -> tensor<16x4xf32>
    %54 = "stablehlo.subtract"(%31, %53) : (tensor<16x4xf32>, tensor<16x4xf32>) -> tensor<16x4xf32>
    %55 = "stablehlo.exponential"(%54) : (tensor<16x4xf32>) -> tensor<16x4xf32>
    %56 = "stablehlo.constant"() {value = dense<0.0> : tensor<f32>} : () -> tensor<f32>
    %57 = "stablehlo.reduce"(%55, %56) ({
      ^bb0(%58: tensor<f32>, %59: tensor<f32>):
        %60 = "stablehlo.add"(%58, %59) : (tensor<f32>, tensor<f32>) -> tensor<f32>
        "stablehlo.return"(%60) : (tensor<f32>) -> ()
    }) {dimensions = array<i64: 1>} : (tensor<16x4xf32>, tensor<f32>) -> tensor<16xf32>
    %61 = "stablehlo.reshape"(%57) : (tensor<16xf32>) -> tensor<16x1xf32>
    %62 = "stablehlo.log"(%61) : (tensor<16x1xf32>) -> tensor<16x1xf32>
    %63 = "stablehlo.add"(%62, %52) : (tensor<16x1xf32>, tensor<16x1xf32>) -> tensor<16x1xf32>
    %64 = "stablehlo.broadcast_in_dim"(%63) {broadcast_dimensions = array<i64: 0, 1>} : (tensor<16x1xf32>) -> tensor<16x4xf32>
    %65 = "stablehlo.subtract"(%31, %64) : (tensor<16x4xf32>, tensor<16x4xf32>) -> tensor<16x4xf32>
    %66 = "stablehlo.convert"(%33) : (tensor<16xi1>) -> tensor<16xf32>
    %67 = "stablehlo.iota"() {iota_dimension = 0 : i64} : () -> tensor<16xi32>
    %68 = "stablehlo.broadcast_in_dim"(%6) {broadcast_dimensions = array<i64>} : (tensor<i32>) -> tensor<16xi32>
    %69 = "stablehlo.multiply"(%67, %68) : (tensor<16xi32>, tensor<16xi32>) -> tensor<16xi32>
    %70 = "stablehlo.add"(%69, %35) : (tensor<16xi32>, tensor<16xi32>) -> tensor<16xi32>
    %71 = "stablehlo.reshape"(%65) : (tensor<16x4xf32>) -> tensor<64xf32>
    %72 = "stablehlo.gather"(%71, %70) {dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1>, indices_are_sorted = false} : (tensor<64xf32>, tensor<16xi32>) -> tensor<16xf32>
    %73 = "stablehlo.negate"(%72) : (tensor<16xf32>) -> tensor<16xf32>
    %74 = "stablehlo.multiply"(%73, %66) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    %75 = "stablehlo.reduce"(%74, %56) ({
      ^bb0(%76: tensor<f32>, %77: tensor<f32>):
        %78 = "stablehlo.add"(%76, %77) : (tensor<f32>, tensor<f32>) -> tensor<f32>
        "stablehlo.return"(%78) : (tensor<f32>) -> ()
    }) {dimensions = array<i64: 0>} : (tensor<16xf32>, tensor<f32>) -> tensor<f32>
    %79 = "stablehlo.reduce"(%66, %56) ({
      ^bb0(%80: tensor<f32>, %81: tensor<f32>):
        %82 = "stablehlo.add"(%80, %81) : (tensor<f32>, tensor<f32>) -> tensor<f32>
        "stablehlo.return"(%82) : (tensor<f32>) -> ()
    }) {dimensions = array<i64: 0>} : (tensor<16xf32>, tensor<f32>) -> tensor<f32>
    %83 = "stablehlo.maximum"(%79, %2) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %84 = "stablehlo.compare"(%79, %79) {comparison_direction = #stablehlo<comparison_direction NE>, compare_type = #stablehlo<comparison_type FLOAT>} : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %85 = "stablehlo.compare"(%2, %2) {comparison_direction = #stablehlo<comparison_direction NE>, compare_type = #stablehlo<comparison_type FLOAT>} : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %86 = "stablehlo.select"(%85, %2, %83) : (tensor<i1>, tensor<f32>, tensor<f32>) -> tensor<f32>
    %87 = "stablehlo.select"(%84, %79, %86) : (tensor<i1>, tensor<f32>, tensor<f32>) -> tensor<f32>
    %88 = "stablehlo.divide"(%75, %87) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %89 = "stablehlo.divide"(%7, %87) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %90 = "stablehlo.broadcast_in_dim"(%89) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<16xf32>
    %91 = "stablehlo.multiply"(%90, %66) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    %92 = "stablehlo.negate"(%91) : (tensor<16xf32>) -> tensor<16xf32>
    %93 = "stablehlo.broadcast_in_dim"(%8) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<64xf32>
    %94 = "stablehlo.constant"() {value = dense<0> : tensor<16xi32>} : () -> tensor<16xi32>
    %95 = "stablehlo.maximum"(%70, %94) : (tensor<16xi32>, tensor<16xi32>) -> tensor<16xi32>
    %96 = "stablehlo.constant"() {value = dense<63> : tensor<16xi32>} : () -> tensor<16xi32>
    %97 = "stablehlo.minimum"(%95, %96) : (tensor<16xi32>, tensor<16xi32>) -> tensor<16xi32>
    %98 = "stablehlo.scatter"(%93, %97, %92) ({
      ^bb0(%99: tensor<f32>, %100: tensor<f32>):
        %101 = "stablehlo.add"(%99, %100) : (tensor<f32>, tensor<f32>) -> tensor<f32>
        "stablehlo.return"(%101) : (tensor<f32>) -> ()
    }) {scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, indices_are_sorted = false, unique_indices = false} : (tensor<64xf32>, tensor<16xi32>, tensor<16xf32>) -> tensor<64xf32>
    %102 = "stablehlo.reshape"(%98) : (tensor<64xf32>) -> tensor<16x4xf32>
    %103 = "stablehlo.negate"(%102) : (tensor<16x4xf32>) -> tensor<16x4xf32>
    %104 = "stablehlo.reduce"(%103, %56) ({
      ^bb0(%105: tensor<f32>, %106: tensor<f32>):
        %107 = "stablehlo.add"(%105, %106) : (tensor<f32>, tensor<f32>) -> tensor<f32>
        "stablehlo.return"(%107) : (tensor<f32>) -> ()
    }) {dimensions = array<i64: 1>} : (tensor<16x4xf32>, tensor<f32>) -> tensor<16xf32>
    %108 = "stablehlo.reshape"(%104) : (tensor<16xf32>) -> tensor<16x1xf32>
    %109 = "stablehlo.divide"(%108, %61) : (tensor<16x1xf32>, tensor<16x1xf32>) -> tensor<16x1xf32>
    %110 = "stablehlo.reshape"(%109) : (tensor<16x1xf32>) -> tensor<16xf32>
    %111 = "stablehlo.broadcast_in_dim"(%110) {broadcast_dimensions = array<i64: 0>} : (tensor<16xf32>) -> tensor<16x4xf32>
    %112 = "stablehlo.multiply"(%111, %55) : (tensor<16x4xf32>, tensor<16x4xf32>) -> tensor<16x4xf32>
    %113 = "stablehlo.add"(%102, %112) : (tensor<16x4xf32>, tensor<16x4xf32>) -> tensor<16x4xf32>
    %114 = "stablehlo.reduce"(%113, %56) ({
      ^bb0(%115: tensor<f32>, %116: tensor<f32>):
        %117 = "stablehlo.add"(%115, %116) : (tensor<f32>, tensor<f32>) -> tensor<f32>
        "stablehlo.return"(%117) : (tensor<f32>) -> ()
    }) {dimensions = array<i64: 0>} : (tensor<16x4xf32>, tensor<f32>) -> tensor<4xf32>
    %118 = "stablehlo.dot_general"(%113, %arg3) {dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1]>, precision_config = [#stablehlo<precision HIGHEST>, #stablehlo<precision HIGHEST>]} : (tensor<16x4xf32>, tensor<16x4xf32>) -> tensor<16x16xf32>
    %119 = "stablehlo.dot_general"(%113, %28) {dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [0], rhs_contracting_dimensions = [0]>, precision_config = [#stablehlo<precision HIGHEST>, #stablehlo<precision HIGHEST>]} : (tensor<16x4xf32>, tensor<16x16xf32>) -> tensor<4x16xf32>
    %120 = "stablehlo.transpose"(%119) {permutation = array<i64: 1, 0>} : (tensor<4x16xf32>) -> tensor<16x4xf32>
    %121 = "stablehlo.multiply"(%118, %27) : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
    %122 = "stablehlo.multiply"(%118, %22) : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
    %123 = "stablehlo.multiply"(%24, %24) : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
    %124 = "stablehlo.negate"(%123) : (tensor<16x16xf32>) -> tensor<16x16xf32>
    %125 = "stablehlo.exponential"(%124) : (tensor<16x16xf32>) -> tensor<16x16xf32>
    %126 = "stablehlo.broadcast_in_dim"(%9) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<16x16xf32>
    %127 = "stablehlo.multiply"(%125, %126) : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
    %128 = "stablehlo.multiply"(%122, %127) : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
    %129 = "stablehlo.multiply"(%128, %23) : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
    %130 = "stablehlo.multiply"(%121, %21) : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
    %131 = "stablehlo.add"(%129, %130) : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
    %132 = "stablehlo.reduce"(%131, %56) ({
      ^bb0(%133: tensor<f32>, %134: tensor<f32>):
        %135 = "stablehlo.add"(%133, %134) : (tensor<f32>, tensor<f32>) -> tensor<f32>
        "stablehlo.return"(%135) : (tensor<f32>) -> ()
    }) {dimensions = array<i64: 0>} : (tensor<16x16xf32>, tensor<f32>) -> tensor<16xf32>
    %136 = "stablehlo.dot_general"(%131, %arg13) {dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [0], rhs_contracting_dimensions = [0]>, precision_config = [#stablehlo<precision HIGHEST>, #stablehlo<precision HIGHEST>]} : (tensor<16x16xf32>, tensor<16x8xf32>) -> tensor<16x8xf32>
    %137 = "stablehlo.transpose"(%136) {permutation = array<i64: 1, 0>} : (tensor<16x8xf32>) -> tensor<8x16xf32>
    %138 = "stablehlo.add"(%arg8, %7) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %139 = "stablehlo.broadcast_in_dim"(%10) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<f32>
    %140 = "stablehlo.power"(%139, %138) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %141 = "stablehlo.subtract"(%7, %140) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %142 = "stablehlo.broadcast_in_dim"(%11) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<f32>
    %143 = "stablehlo.power"(%142, %138) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %144 = "stablehlo.subtract"(%7, %143) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %145 = "stablehlo.broadcast_in_dim"(%12) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<16xf32>
    %146 = "stablehlo.multiply"(%arg4, %145) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    %147 = "stablehlo.broadcast_in_dim"(%13) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<16xf32>
    %148 = "stablehlo.multiply"(%132, %147) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    %149 = "stablehlo.add"(%146, %148) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    %150 = "stablehlo.broadcast_in_dim"(%12) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<4xf32>
    %151 = "stablehlo.multiply"(%arg5, %150) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %152 = "stablehlo.broadcast_in_dim"(%13) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<4xf32>
    %153 = "stablehlo.multiply"(%114, %152) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %154 = "stablehlo.add"(%151, %153) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %155 = "stablehlo.broadcast_in_dim"(%12) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<8x16xf32>
    %156 = "stablehlo.multiply"(%arg6, %155) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %157 = "stablehlo.broadcast_in_dim"(%13) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<8x16xf32>
    %158 = "stablehlo.multiply"(%137, %157) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %159 = "stablehlo.add"(%156, %158) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %160 = "stablehlo.broadcast_in_dim"(%12) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<16x4xf32>
    %161 = "stablehlo.multiply"(%arg7, %160) : (tensor<16x4xf32>, tensor<16x4xf32>) -> tensor<16x4xf32>
    %162 = "stablehlo.broadcast_in_dim"(%13) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<16x4xf32>
    %163 = "stablehlo.multiply"(%120, %162) : (tensor<16x4xf32>, tensor<16x4xf32>) -> tensor<16x4xf32>
    %164 = "stablehlo.add"(%161, %163) : (tensor<16x4xf32>, tensor<16x4xf32>) -> tensor<16x4xf32>
    %165 = "stablehlo.broadcast_in_dim"(%14) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<16xf32>
    %166 = "stablehlo.multiply"(%arg9, %165) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    %167 = "stablehlo.multiply"(%132, %132) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    %168 = "stablehlo.broadcast_in_dim"(%15) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<16xf32>
    %169 = "stablehlo.multiply"(%167, %168) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    %170 = "stablehlo.add"(%166, %169) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    %171 = "stablehlo.broadcast_in_dim"(%14) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<4xf32>
    %172 = "stablehlo.multiply"(%arg10, %171) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %173 = "stablehlo.multiply"(%114, %114) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %174 = "stablehlo.broadcast_in_dim"(%15) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<4xf32>
    %175 = "stablehlo.multiply"(%173, %174) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %176 = "stablehlo.add"(%172, %175) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %177 = "stablehlo.broadcast_in_dim"(%14) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<8x16xf32>
    %178 = "stablehlo.multiply"(%arg11, %177) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %179 = "stablehlo.multiply"(%137, %137) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %180 = "stablehlo.broadcast_in_dim"(%15) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<8x16xf32>
    %181 = "stablehlo.multiply"(%179, %180) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %182 = "stablehlo.add"(%178, %181) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %183 = "stablehlo.broadcast_in_dim"(%14) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<16x4xf32>
    %184 = "stablehlo.multiply"(%arg12, %183) : (tensor<16x4xf32>, tensor<16x4xf32>) -> tensor<16x4xf32>
    %185 = "stablehlo.multiply"(%120, %120) : (tensor<16x4xf32>, tensor<16x4xf32>) -> tensor<16x4xf32>
    %186 = "stablehlo.broadcast_in_dim"(%15) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<16x4xf32>
    %187 = "stablehlo.multiply"(%185, %186) : (tensor<16x4xf32>, tensor<16x4xf32>) -> tensor<16x4xf32>
    %188 = "stablehlo.add"(%184, %187) : (tensor<16x4xf32>, tensor<16x4xf32>) -> tensor<16x4xf32>
    %189 = "stablehlo.broadcast_in_dim"(%141) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<16xf32>
    %190 = "stablehlo.divide"(%149, %189) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    %191 = "stablehlo.broadcast_in_dim"(%144) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<16xf32>
    %192 = "stablehlo.divide"(%170, %191) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    %193 = "stablehlo.sqrt"(%192) : (tensor<16xf32>) -> tensor<16xf32>
    %194 = "stablehlo.broadcast_in_dim"(%16) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<16xf32>
    %195 = "stablehlo.add"(%193, %194) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    %196 = "stablehlo.divide"(%190, %195) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    %197 = "stablehlo.broadcast_in_dim"(%17) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<16xf32>
    %198 = "stablehlo.multiply"(%arg0, %197) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    %199 = "stablehlo.add"(%196, %198) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    %200 = "stablehlo.broadcast_in_dim"(%arg15) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<16xf32>
    %201 = "stablehlo.multiply"(%200, %199) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    %202 = "stablehlo.subtract"(%arg0, %201) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    %203 = "stablehlo.broadcast_in_dim"(%141) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<4xf32>
    %204 = "stablehlo.divide"(%154, %203) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %205 = "stablehlo.broadcast_in_dim"(%144) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<4xf32>
    %206 = "stablehlo.divide"(%176, %205) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %207 = "stablehlo.sqrt"(%206) : (tensor<4xf32>) -> tensor<4xf32>
    %208 = "stablehlo.broadcast_in_dim"(%16) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<4xf32>
    %209 = "stablehlo.add"(%207, %208) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %210 = "stablehlo.divide"(%204, %209) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %211 = "stablehlo.broadcast_in_dim"(%17) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<4xf32>
    %212 = "stablehlo.multiply"(%arg1, %211) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %213 = "stablehlo.add"(%210, %212) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %214 = "stablehlo.broadcast_in_dim"(%arg15) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<4xf32>
    %215 = "stablehlo.multiply"(%214, %213) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %216 = "stablehlo.subtract"(%arg1, %215) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %217 = "stablehlo.broadcast_in_dim"(%141) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<8x16xf32>
    %218 = "stablehlo.divide"(%159, %217) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %219 = "stablehlo.broadcast_in_dim"(%144) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<8x16xf32>
    %220 = "stablehlo.divide"(%182, %219) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %221 = "stablehlo.sqrt"(%220) : (tensor<8x16xf32>) -> tensor<8x16xf32>
    %222 = "stablehlo.broadcast_in_dim"(%16) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<8x16xf32>
    %223 = "stablehlo.add"(%221, %222) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %224 = "stablehlo.divide"(%218, %223) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %225 = "stablehlo.broadcast_in_dim"(%17) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<8x16xf32>
    %226 = "stablehlo.multiply"(%arg2, %225) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %227 = "stablehlo.add"(%224, %226) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %228 = "stablehlo.broadcast_in_dim"(%arg15) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<8x16xf32>
    %229 = "stablehlo.multiply"(%228, %227) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %230 = "stablehlo.subtract"(%arg2, %229) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %231 = "stablehlo.broadcast_in_dim"(%141) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<16x4xf32>
    %232 = "stablehlo.divide"(%164, %231) : (tensor<16x4xf32>, tensor<16x4xf32>) -> tensor<16x4xf32>
    %233 = "stablehlo.broadcast_in_dim"(%144) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<16x4xf32>
    %234 = "stablehlo.divide"(%188, %233) : (tensor<16x4xf32>, tensor<16x4xf32>) -> tensor<16x4xf32>
    %235 = "stablehlo.sqrt"(%234) : (tensor<16x4xf32>) -> tensor<16x4xf32>
    %236 = "stablehlo.broadcast_in_dim"(%16) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<16x4xf32>
    %237 = "stablehlo.add"(%235, %236) : (tensor<16x4xf32>, tensor<16x4xf32>) -> tensor<16x4xf32>
    %238 = "stablehlo.divide"(%232, %237) : (tensor<16x4xf32>, tensor<16x4xf32>) -> tensor<16x4xf32>
    %239 = "stablehlo.broadcast_in_dim"(%17) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<16x4xf32>
    %240 = "stablehlo.multiply"(%arg3, %239) : (tensor<16x4xf32>, tensor<16x4xf32>) -> tensor<16x4xf32>
    %241 = "stablehlo.add"(%238, %240) : (tensor<16x4xf32>, tensor<16x4xf32>) -> tensor<16x4xf32>
    %242 = "stablehlo.broadcast_in_dim"(%arg15) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<16x4xf32>
    %243 = "stablehlo.multiply"(%242, %241) : (tensor<16x4xf32>, tensor<16x4xf32>) -> tensor<16x4xf32>
    %244 = "stablehlo.subtract"(%arg3, %243) : (tensor<16x4xf32>, tensor<16x4xf32>) -> tensor<16x4xf32>
    func.return %88, %202, %216, %230, %244, %149, %154, %159, %164, %138, %170, %176, %182, %188 : tensor<f32>, tensor<16xf32>, tensor<4xf32>, tensor<8x16xf32>, tensor<16x4xf32>, tensor<16xf32>, tensor<4xf32>, tensor<8x16xf32>, tensor<16x4xf32>, tensor<f32>, tensor<16xf32>, tensor<4xf32>, tensor<8x16xf32>, tensor<16x4xf32>
  }
}
