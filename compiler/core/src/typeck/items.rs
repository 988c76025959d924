//! The phases over top-level items: registering every name (duplicates are `E0207`), lowering record
//! declarations, collecting the signatures of functions and kernels, and checking their bodies. Constants have
//! their own phase, in dependency order (`constants.rs`).

use crate::diagnostic::Diagnostic;
use crate::source::Span;
use crate::syntax::ast::{Function, Ident, Item, Kernel, Param, TypeExpr};
use crate::types::{
    ConstValue, ConstantId, ConstantInfo, FunctionId, FunctionInfo, KernelInfo, KernelParamInfo, LocalId, Mutability,
    RecordId, RecordInfo, Type,
};

use crate::vectors::VectorKind;

use super::infer::Class;
use super::report::Because;
use super::scope::{is_bogus_name, ValueItem};
use super::{BodyContext, Checker, Owner};

/// What an entry of `Module::items` became.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ItemRef {
    Kernel(usize),
    Function(FunctionId),
    Constant(ConstantId),
    Record(RecordId),
    Open,
}

impl<'a> Checker<'a> {
    /// Registers every item's name and allocates its entry in `TypeInfo` (signatures come later).
    pub(crate) fn collect_items(&mut self) {
        let module = self.module;
        self.declare_vector_records();
        self.items.reserve(module.items.len());
        self.item_refs.reserve(module.items.len());
        // The item tables sized once: growing them by doubling copied them (a kernel's entry is large).
        let count = |is: fn(&Item) -> bool| module.items.iter().filter(|item| is(item)).count();
        self.info.kernels.reserve(count(|item| matches!(item, Item::Kernel(_))));
        self.info.functions.reserve(count(|item| matches!(item, Item::Function(_))));
        self.info.constants.reserve(count(|item| matches!(item, Item::Constant(_))));
        for (index, item) in module.items.iter().enumerate() {
            let item_ref = match item {
                Item::Kernel(k) => self.register_kernel(k, index),
                Item::Function(f) => self.register_function(f, index),
                Item::Constant(c) => self.register_constant(&c.name, c.span, index),
                Item::Record(r) => self.register_record(&r.name, r.span),
                Item::Open(_) => ItemRef::Open,
            };
            self.item_refs.push(item_ref);
        }
        self.name_vector_records();
    }

    /// The vector types (`crate::vectors`) are records `0..VectorKind::ALL.len()`, declared before the
    /// program's own, so that a field name the program's records also use (`x`) finds the program's record.
    fn declare_vector_records(&mut self) {
        let span = self.module.expr_spans.first().map(|s| Span { end: s.start, ..*s }).unwrap_or_default();
        for kind in VectorKind::ALL {
            let name = String::from(kind.name());
            self.info.records.push(RecordInfo { name, fields: kind.fields(), span, vector: Some(kind), tuple: false });
        }
    }

    /// Vector type names a program's own record does not take.
    fn name_vector_records(&mut self) {
        for (index, kind) in VectorKind::ALL.into_iter().enumerate() {
            let span = self.info.records[index].span;
            self.items.records.entry(kind.name().into()).or_insert((RecordId(index as u32), span));
        }
    }

    fn register_kernel(&mut self, kernel: &Kernel, item: usize) -> ItemRef {
        let id = self.info.kernels.len();
        self.info.kernels.push(KernelInfo {
            name: String::from(kernel.name.name.as_str()),
            params: Vec::new(),
            span: kernel.span,
            item,
            dynamic_shared: None,
        });
        self.register_value(&kernel.name, ValueItem::Kernel(id));
        ItemRef::Kernel(id)
    }

    fn register_function(&mut self, function: &Function, item: usize) -> ItemRef {
        let id = FunctionId(self.info.functions.len() as u32);
        self.info.functions.push(FunctionInfo {
            name: String::from(function.name.name.as_str()),
            params: Vec::new(),
            ret: Type::Error,
            span: function.span,
            item,
            instance: self.instance_notes.get(item).cloned().flatten(),
            varying_vector_params: Vec::new(),
        });
        self.register_value(&function.name, ValueItem::Function(id));
        ItemRef::Function(id)
    }

    fn register_constant(&mut self, name: &Ident, span: Span, item: usize) -> ItemRef {
        let id = ConstantId(self.info.constants.len() as u32);
        self.info.constants.push(ConstantInfo {
            name: String::from(name.name.as_str()),
            ty: Type::Error,
            value: ConstValue::Int(0),
            span,
            item,
        });
        self.failed_constants.push(false);
        self.evaluated_constants.push(false);
        self.register_value(name, ValueItem::Constant(id));
        ItemRef::Constant(id)
    }

    fn register_record(&mut self, name: &Ident, span: Span) -> ItemRef {
        let id = RecordId(self.info.records.len() as u32);
        self.info.records.push(RecordInfo {
            name: String::from(name.name.as_str()),
            fields: Vec::new(),
            span,
            vector: None,
            tuple: false,
        });
        if is_bogus_name(&name.name) {
            return ItemRef::Record(id);
        }
        if let Some((_, first)) = self.items.records.get(name.name.as_str()) {
            let first = *first;
            self.report_duplicate("type", name, first);
        } else {
            self.items.records.insert(name.name.clone(), (id, name.span));
        }
        ItemRef::Record(id)
    }

    fn register_value(&mut self, name: &Ident, item: ValueItem) {
        if is_bogus_name(&name.name) {
            return;
        }
        if let Err(first) = self.items.define(&name.name, item, name.span) {
            self.report_duplicate("name", name, first);
        }
    }

    fn report_duplicate(&mut self, what: &str, name: &Ident, first: Span) {
        self.diagnostics.push(
            Diagnostic::error("E0207", format!("the {what} `{}` is defined more than once", name.name))
                .primary(name.span, "defined again here")
                .secondary(first, "first defined here")
                .help("rename one of them"),
        );
    }

    /// Lowers the field types of every record declaration.
    pub(crate) fn lower_records(&mut self) {
        let module = self.module;
        for (index, item) in module.items.iter().enumerate() {
            let (Item::Record(decl), Some(ItemRef::Record(id))) = (item, self.item_refs.get(index).copied()) else {
                continue;
            };
            let mut fields: Vec<(String, Type)> = Vec::new();
            for (name, ty) in &decl.fields {
                let ty = self.lower_type(ty);
                if fields.iter().any(|(n, _)| *n == name.name) {
                    let d = Diagnostic::error("E0207", format!("the field `{}` is declared twice", name.name))
                        .primary(name.span, "declared again here");
                    self.diagnostics.push(d);
                    continue;
                }
                if ty == Type::Record(id) {
                    let d = Diagnostic::error("E0206", format!("the record `{}` contains itself", decl.name.name))
                        .primary(name.span, "a record cannot contain itself");
                    self.diagnostics.push(d);
                }
                fields.push((String::from(name.name.as_str()), ty));
            }
            if let Some(info) = self.info.records.get_mut(id.0 as usize) {
                info.fields = fields;
            }
        }
    }

    /// Collects parameter and return types of functions and kernels (unannotated ones become variables).
    pub(crate) fn collect_signatures(&mut self) {
        let module = self.module;
        self.ctx = BodyContext::top_level();
        for (index, item) in module.items.iter().enumerate() {
            match (item, self.item_refs.get(index).copied()) {
                (Item::Function(f), Some(ItemRef::Function(id))) => self.function_signature(f, id),
                (Item::Kernel(k), Some(ItemRef::Kernel(id))) => self.kernel_signature(k, id),
                _ => {}
            }
        }
    }

    fn function_signature(&mut self, function: &Function, id: FunctionId) {
        self.type_variables = Some(Vec::new());
        let params = self.declare_params(&function.params);
        let ret = match &function.ret {
            Some(ty) => self.lower_type(ty),
            None => self.vars.fresh(Class::Any),
        };
        if let Some(variables) = self.type_variables.take().filter(|v| !v.is_empty()) {
            self.signature_type_variables.insert(id, variables);
        }
        if let Some(info) = self.info.functions.get_mut(id.0 as usize) {
            info.params = params;
            info.ret = ret;
        }
    }

    fn kernel_signature(&mut self, kernel: &Kernel, id: usize) {
        self.type_variables = Some(Vec::new());
        let locals = self.declare_params(&kernel.params);
        self.type_variables = None;
        self.report_kernel_type_variables(kernel, &locals);
        let params = kernel
            .params
            .iter()
            .zip(&locals)
            .map(|(p, l)| KernelParamInfo {
                name: String::from(p.name.name.as_str()),
                ty: self.local_type(*l),
                local: *l,
                written: false,
                loaded_atomically: false,
            })
            .collect();
        if let Some(info) = self.info.kernels.get_mut(id) {
            info.params = params;
        }
    }

    /// `E0214` for a kernel parameter whose annotation has a type variable: the host launches a kernel with one
    /// type per parameter. The parameter's type becomes `Type::Error`, so nothing else is reported about it.
    fn report_kernel_type_variables(&mut self, kernel: &Kernel, locals: &[LocalId]) {
        for (param, local) in kernel.params.iter().zip(locals) {
            let Some(variable) = param.ty.as_ref().and_then(first_type_variable) else { continue };
            let d = Diagnostic::error(
                "E0214",
                format!("kernel parameter `{}` cannot have a type variable", param.name.name),
            )
            .primary(variable.span, format!("`{}` is a type variable", variable.name))
            .help("a kernel is launched with one type per parameter: write that type, and keep generic code in device functions");
            self.diagnostics.push(d);
            if let Some(info) = self.info.locals.get_mut(local.0 as usize) {
                info.ty = Type::Error;
            }
        }
    }

    /// One local per parameter; duplicate names are `E0207`.
    fn declare_params(&mut self, params: &[Param]) -> Vec<LocalId> {
        let mut locals = Vec::with_capacity(params.len());
        for (index, param) in params.iter().enumerate() {
            let ty = match &param.ty {
                Some(ty) => self.lower_type(ty),
                None => self.vars.fresh(Class::Any),
            };
            if let Some(earlier) =
                params[..index].iter().find(|p| p.name.name == param.name.name && !is_bogus_name(&p.name.name))
            {
                let d = Diagnostic::error("E0207", format!("the parameter `{}` is declared twice", param.name.name))
                    .primary(param.name.span, "declared again here")
                    .secondary(earlier.name.span, "first declared here");
                self.diagnostics.push(d);
            }
            locals.push(self.new_local(&param.name.name, ty, Mutability::Immutable, param.name.span, Some(index)));
        }
        locals
    }

    /// Checks the body of every function, then of every kernel.
    pub(crate) fn check_bodies(&mut self) {
        let module = self.module;
        // While a body is checked, the next one's nodes are fetched (see `crate::warm`): the checker's descent
        // finds each node in the one before, and would wait for memory at nearly every node of a large file.
        let item_nodes = crate::warm::item_ranges(module);
        let prefetch_body = |index: usize| {
            if let Some(range) = item_nodes.get(index) {
                let start = range.start.max(range.end.saturating_sub(MAX_PREFETCHED_NODES));
                crate::warm::prefetch(module.exprs.get(start as usize..range.end as usize).unwrap_or_default());
            }
        };
        // Functions first (in `function_body_order`), then kernels in source order.
        let mut order = self.function_body_order();
        order.retain(|index| matches!(module.items.get(*index), Some(Item::Function(_))));
        order.extend((0..module.items.len()).filter(|i| matches!(module.items[*i], Item::Kernel(_))));
        for (at, &index) in order.iter().enumerate() {
            if let Some(&next) = order.get(at + 1) {
                prefetch_body(next);
            }
            match (module.items.get(index), self.item_refs.get(index).copied()) {
                (Some(Item::Function(f)), Some(ItemRef::Function(id))) => {
                    self.check_function_body(f, id);
                    self.generalise(id);
                }
                (Some(Item::Kernel(k)), Some(ItemRef::Kernel(id))) => self.check_kernel_body(k, id),
                _ => {}
            }
        }
    }

    /// The items of functions in the order their bodies are checked: source order, or callees first when
    /// generic functions are being planned (a function is generalised before its calls are checked).
    fn function_body_order(&self) -> Vec<usize> {
        let module = self.module;
        if !self.generics.enabled {
            return (0..module.items.len()).collect();
        }
        let mut functions = crate::fxhash::FxHashMap::default();
        for (index, item) in module.items.iter().enumerate() {
            if let Item::Function(f) = item {
                functions.entry(f.name.name.as_str()).or_insert(index);
            }
        }
        super::generic::callee_first_order(module, &functions)
    }

    fn check_function_body(&mut self, function: &'a Function, id: FunctionId) {
        let (before, deferred_before) = (self.diagnostics.len(), self.deferred.len());
        self.check_function_body_here(function, id);
        if let Some(note) = self.info.functions.get(id.0 as usize).and_then(|f| f.instance.clone()) {
            for d in &mut self.diagnostics[before..] {
                d.notes.push(note.clone());
            }
            self.deferred_instances.push((deferred_before..self.deferred.len(), note));
        }
    }

    fn check_function_body_here(&mut self, function: &'a Function, id: FunctionId) {
        let Some(info) = self.info.functions.get(id.0 as usize) else {
            return;
        };
        let (params, ret) = (info.params.clone(), info.ret.clone());
        let annotation = function.ret.as_ref().map(|t| t.span());
        self.ctx = BodyContext {
            owner: Owner::Function(id),
            return_type: ret.clone(),
            return_annotation: annotation,
            loop_depth: 0,
            dynamic_shared: None,
        };
        self.type_variables = Some(self.signature_type_variables.get(&id).cloned().unwrap_or_default());
        let body_ty = self.check_body_with_params(&function.params, &params, function.body);
        self.type_variables = None;
        let why = match annotation {
            Some(span) => Because::of(span, "return type declared here"),
            None => Because::default(),
        };
        let tail = self.tail(function.body);
        self.expect_type_because(tail, &body_ty, &ret, why);
    }

    fn check_kernel_body(&mut self, kernel: &'a Kernel, id: usize) {
        let Some(info) = self.info.kernels.get(id) else {
            return;
        };
        let params: Vec<LocalId> = info.params.iter().map(|p| p.local).collect();
        self.ctx = BodyContext {
            owner: Owner::Kernel(id),
            return_type: Type::Unit,
            return_annotation: None,
            loop_depth: 0,
            dynamic_shared: None,
        };
        self.type_variables = Some(Vec::new());
        let body_ty = self.check_body_with_params(&kernel.params, &params, kernel.body);
        self.type_variables = None;
        let tail = self.tail(kernel.body);
        self.expect_type_because(tail, &body_ty, &Type::Unit, Because::help("a kernel's body must have type unit"));
    }

    fn check_body_with_params(
        &mut self,
        params: &'a [Param],
        locals: &[LocalId],
        body: crate::syntax::ast::ExprId,
    ) -> Type {
        self.scopes.clear();
        self.scopes.push();
        for (param, local) in params.iter().zip(locals) {
            self.scopes.declare(&param.name.name, *local);
        }
        let ty = self.check_expr(body);
        self.scopes.clear();
        ty
    }
}

/// The first type variable (`'a`) a type expression mentions.
pub(crate) fn first_type_variable(ty: &TypeExpr) -> Option<&Ident> {
    match ty {
        TypeExpr::Variable(name) => Some(name),
        TypeExpr::Named(_) | TypeExpr::Qualified { .. } => None,
        TypeExpr::Apply { arg, .. } | TypeExpr::QualifiedApply { arg, .. } => first_type_variable(arg),
        TypeExpr::Sized { elem, .. } => first_type_variable(elem),
        TypeExpr::Function { params, ret } => {
            params.iter().find_map(first_type_variable).or_else(|| first_type_variable(ret))
        }
        TypeExpr::Tuple(components) => components.iter().find_map(first_type_variable),
    }
}

/// The most nodes of a body fetched ahead of its check (a long body's first nodes are checked last).
const MAX_PREFETCHED_NODES: u32 = 1024;
